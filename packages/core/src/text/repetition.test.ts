import { describe, expect, it } from "vitest";
import { loadGsm8k, loadLiveCodeBench } from "../__fixtures__/real-data.ts";
import { ngramRepeatRatio, repeatRun, repeatRunAtLeast } from "./repetition.ts";
import { scriptMix } from "./script-mix.ts";

// The definitions the fast helpers must keep, written the plain way: strings, sets and regexes.
function referenceNgramRatio(text: string, n: number): number {
  const words = text.toLowerCase().replace(/\d+/g, "0").split(/\s+/).filter((w) => w !== "");
  if (words.length < n + 8) return 0;
  const total = words.length - n + 1;
  const seen = new Set<string>();
  for (let i = 0; i < total; i++) seen.add(words.slice(i, i + n).join("\u0000"));
  return 1 - seen.size / total;
}
function referenceScriptMix(text: string): number {
  const counts = new Map<string, number>();
  let letters = 0;
  for (const ch of text) {
    if (!/\p{L}/u.test(ch)) continue;
    letters++;
    const script = ["Latin", "Cyrillic", "Greek", "Han|Hiragana|Katakana", "Hangul", "Arabic", "Hebrew", "Devanagari", "Thai"].find((names) =>
      names.split("|").some((name) => new RegExp(`\\p{Script=${name}}`, "u").test(ch)),
    ) ?? "other";
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return letters === 0 ? 0 : 1 - Math.max(...counts.values()) / letters;
}

/** repeat_run by its definition: every period, every position. */
function referenceRepeatRun(text: string, maxPeriod = 16): number {
  let best = 0;
  for (let p = 1; p <= maxPeriod; p++) {
    let run = 0;
    for (let i = 0; i + p <= text.length; i++) {
      if (i + p < text.length && text[i] === text[i + p]) run++;
      else {
        if (run > 0) best = Math.max(best, run + p);
        run = 0;
      }
    }
  }
  return best;
}

const LOOPS = [
  "Let me check. ".repeat(40),
  `So the answer is ${"18".repeat(50)}`,
  "Step 1: add 3. Step 2: add 3. Step 3: add 3. ".repeat(12),
  "Ünïcödé wörds répétés encore. ".repeat(20),
  "答案是 42。答案是 42。".repeat(20) + " so the answer is 42",
  "The total is 5 dollars and the cost is 3.\u00a0".repeat(15),
  "İstanbul ΣΟΦΟΣ σοφός x\u2028y ".repeat(12),
  // Control bytes are word characters to JavaScript's \s, not separators or digits.
  "ctrl\u0001 A1 \u0000 B\u000b2 \u007f C 12 ".repeat(3) + "ctrl\u0002 A1 \u0000 B2 \u007f c 34 ".repeat(3),
];

function texts(): string[] {
  const real = [...loadGsm8k().map((r) => r.rollout.response!), ...loadLiveCodeBench().map((r) => r.rollout.response!)];
  return [...real, ...LOOPS, "", "short text", "a\tb\vc\fd\re\nf g"];
}

describe("text helpers keep their definitions on real model output", () => {
  const all = texts();

  it("ngram_repeat_ratio equals the word-set definition (ASCII and Unicode paths)", () => {
    const diffs = all.filter((t) => Math.abs(ngramRepeatRatio(t, 4) - referenceNgramRatio(t, 4)) > 1e-12);
    expect(diffs.map((t) => t.slice(0, 80))).toEqual([]);
    expect(ngramRepeatRatio(LOOPS[0]!, 4)).toBeGreaterThan(0.9);
  });

  it("ngram_repeat_ratio equals the word-set definition on random texts: every length around the kernel's 16-byte blocks, words past 8 bytes, digit runs, case", () => {
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const pieces = ["ab", "AB", "aB", "1", "23", "x9y", "abcdefgh", "abcdefghi", "ABCDEFGHIJKLMNOPQ", "abcdefghijklmnopq", "\u0001", "0"];
    const separators = [" ", " ", " ", "\n", "\t", "  ", "\r\n", ""];
    const generated = Array.from({ length: 600 }, (_, k) => {
      let text = "";
      while (text.length < 20 + k) text += pick(pieces) + pick(separators);
      return text.slice(0, 20 + k);
    });
    const diffs = generated.filter((t) => Math.abs(ngramRepeatRatio(t, 4) - referenceNgramRatio(t, 4)) > 1e-12);
    expect(diffs.map((t) => `${ngramRepeatRatio(t, 4)} ${referenceNgramRatio(t, 4)} ${JSON.stringify(t.slice(0, 60))}`)).toEqual([]);
    expect(generated.filter((t) => referenceNgramRatio(t, 4) > 0).length).toBeGreaterThan(100);
  });

  it("repeat_run equals its definition, on real text and on random texts over small alphabets", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const generated = Array.from({ length: 400 }, (_, k) => {
      const alphabet = "ab c1".slice(0, 1 + (k % 5));
      return Array.from({ length: 20 + (k % 300) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    });
    const diffs = [...all, ...generated].filter((t) => repeatRun(t) !== referenceRepeatRun(t));
    expect(diffs.map((t) => `${repeatRun(t)} ${referenceRepeatRun(t)} ${t.slice(0, 60)}`)).toEqual([]);
  });

  it("repeat_run_at_least answers repeat_run >= K for every K that matters", () => {
    const wrong: string[] = [];
    for (const t of all) {
      const run = repeatRun(t);
      for (const k of [1, 2, 8, 17, 32, 64, 65, 200]) if (repeatRunAtLeast(t, k) !== run >= k) wrong.push(`${k} ${run} ${t.slice(0, 40)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("script_mix equals the per-code-point definition", () => {
    const diffs = all.filter((t) => Math.abs(scriptMix(t) - referenceScriptMix(t)) > 1e-12);
    expect(diffs.map((t) => t.slice(0, 80))).toEqual([]);
    expect(scriptMix("hello world 你好世界")).toBeGreaterThan(0.2);
  });
});
