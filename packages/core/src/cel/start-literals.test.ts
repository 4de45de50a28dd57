import { describe, expect, it } from "vitest";
import { CODE_DETECTORS, SWE_DETECTORS } from "../catalog/index.ts";
import { re2Test } from "./regex.ts";
import { startPlan, startVerdict } from "./start-literals.ts";

// The patterns of catalog rules, as the rules write them.
const catalogPatterns = [...CODE_DETECTORS, ...SWE_DETECTORS].flatMap((d) => [...`${d.when} ${d.evidence ?? ""}`.matchAll(/r'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1]!));

describe("start literals", () => {
  it("plans patterns whose every alternative starts with a literal, and only those", () => {
    expect(startPlan(String.raw`print\s*\(`)?.starts).toEqual(["print"]);
    expect(startPlan(String.raw`git\s+(log|reflog)|\.git/(ORIG_HEAD|logs/)`)?.starts).toEqual(["git", ".git/"]);
    expect(startPlan("(?i)Wrong answer|^wa$")).toBeUndefined();
    expect(startPlan(String.raw`(?i)Error:\s`)).toMatchObject({ starts: ["error:"], fold: true });
    expect(startPlan("a+b|xy?z")?.starts).toEqual(["a", "x"]);
    expect(startPlan(String.raw`\w+\(`)).toBeUndefined();
    expect(startPlan("(^|/)test")).toBeUndefined();
    expect(startPlan("a*b")).toBeUndefined();
    expect(catalogPatterns.filter((p) => startPlan(p) !== undefined).length).toBeGreaterThan(3);
  });

  it("never contradicts RE2 where it gives a verdict", () => {
    const patterns = [
      ...catalogPatterns,
      String.raw`print\s*\(\s*['"](-?\d+ ){4,}-?\d+['"]\s*\)`, String.raw`(?i)error:\s*\w+$`, String.raw`(?m)ab$|cd\b`, String.raw`ab\b`, "(?s)ab.c", "a+b|xy?z", String.raw`(?i)sſ|k\w`,
    ];
    const texts = [
      "", "print", "print (1)", "x = 1\nprint( '1 2 3 4 5' )\n", "print('1 2 3 4')", "ERROR: x", "Error:  abc", "error:abc\n", "ab", "ab\n", "abc", "xab cd", "cdx", "cd", "ab\nc", "abxc",
      "aaab", "xz", "xyz", "xyyz", "SS", "sſ", "Sſ", "\u212Aa", "ka", "git log --all", "cat .git/ORIG_HEAD", "ſ print(", "print(\u00e9)",
      `${"print(x)\n".repeat(20)}print('1 2 3 4 5')`, `${"ab ".repeat(30)}ab`, '{"command":"str_replace","path":"/repo/tests/test_a.py"}',
    ];
    let settled = 0;
    for (const p of patterns) {
      const plan = startPlan(p);
      if (!plan) continue;
      for (const t of texts) {
        const v = startVerdict(plan, t);
        if (v === undefined) continue;
        settled++;
        expect(v, `${p} on ${JSON.stringify(t)}`).toBe(re2Test(t, p));
      }
    }
    expect(settled).toBeGreaterThan(150);
  });

  it("leaves a text with many occurrences to the engine", () => {
    const plan = startPlan(String.raw`print\s*\(`)!;
    expect(startVerdict(plan, "print ".repeat(17))).toBeUndefined();
    expect(startVerdict(plan, "print ".repeat(16))).toBe(false);
  });
});
