import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { shellJoin, shellQuote } from "./shell-quote.ts";

// What a real shell makes of a quoted command line: each word on a line of its own.
const wordsSeenBySh = (line: string) =>
  execFileSync("sh", ["-c", `for word in ${line}; do printf '%s\\0' "$word"; done`], { encoding: "utf8" }).split("\0").slice(0, -1);

describe("shellQuote", () => {
  it("wraps words in single quotes and escapes single quotes", () => {
    expect(shellQuote("plain")).toBe("'plain'");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  const tricky = [
    "",
    "two words",
    "it's",
    "''",
    "$HOME $(id) `id` ${x:-y}",
    'back\\slash "double" quotes',
    "semi; colon && pipe | amp & redirect > < ",
    "new\nline\ttab",
    "glob * ? [a-z] ~ # !",
    "-n",
    "ünïcødé ✓",
  ];

  it.each(tricky)("round-trips %j through a real sh unchanged", (word) => {
    expect(wordsSeenBySh(shellQuote(word))).toEqual([word]);
  });

  it("joins a command line whose words a real sh reads back exactly", () => {
    expect(wordsSeenBySh(shellJoin(tricky))).toEqual(tricky);
  });
});
