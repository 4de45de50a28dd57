import { describe, expect, it } from "vitest";
import { re2Test } from "./regex.ts";

// Patterns whose lazy-DFA states carry line and word anchors: their match at each position depends on
// the characters around it, which patches/@bufbuild+re2 caches per state. One compiled pattern serves
// every text, so a wrong cached answer from one text would show in a later one.
const PATTERNS: [re2: string, js: RegExp][] = [
  [String.raw`(?m)^E\s{3}`, /^E\s{3}/m],
  [String.raw`(?m)OK$`, /OK$/m],
  [String.raw`(?m)^\s*OK\b`, /^\s*OK\b/m],
  [String.raw`\bx_`, /\bx_/],
  [String.raw`(?m)^$`, /^$/m],
  [String.raw`(?m)(^=+ .*(OK|E).* =+$|^OK( \(|$)|\[E\]$)`, /(^=+ .*(OK|E).* =+$|^OK( \(|$)|\[E\]$)/m],
];

/** Deterministic texts over the characters these patterns turn on. */
function* texts(count: number): Generator<string> {
  const alphabet = ["E", " ", "\n", "O", "K", "x", "_", "=", "[", "]", "("];
  let seed = 7;
  for (let i = 0; i < count; i++) {
    let text = "";
    const length = i % 24;
    for (let j = 0; j < length; j++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      text += alphabet[seed % alphabet.length];
    }
    yield text;
  }
}

describe("RE2 search with line and word anchors", () => {
  it("answers as JavaScript's regular expressions do, text after text through one compiled pattern", () => {
    for (const text of texts(3000)) {
      for (const [re2, js] of PATTERNS) expect(re2Test(text, re2), `${re2} on ${JSON.stringify(text)}`).toBe(js.test(text));
    }
  });
});
