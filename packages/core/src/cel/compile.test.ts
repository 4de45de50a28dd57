import { describe, expect, it } from "vitest";
import { ROLLOUT_VARIABLES, capString, rolloutBindings } from "../harness/rollout-variables.ts";
import { caseRollout } from "../harness/detector.ts";
import { compileRule } from "./compile.ts";
import { T } from "./types.ts";

const opts = { variables: ROLLOUT_VARIABLES, expect: T.bool };

function rejection(source: string, limits?: Parameters<typeof compileRule>[1]["limits"]) {
  const r = compileRule(source, { ...opts, limits });
  if (r.ok) throw new Error(`expected ${source} to be rejected`);
  return r;
}

describe("compileRule guards", () => {
  it("accepts a well-formed rule and evaluates it many times from one compilation", () => {
    const r = compileRule("reward < 0.5 && response.contains('boxed')", opts);
    if (!r.ok) throw new Error(r.message);
    expect(r.rule.variables).toEqual(["response", "reward"]);
    const run = (response: string, reward: number) =>
      r.rule.evaluate(rolloutBindings(caseRollout({ name: "x", rollout: { response, reward } })));
    expect(run("\\boxed{1}", 0)).toEqual({ ok: true, value: true });
    expect(run("\\boxed{1}", 1)).toEqual({ ok: true, value: false });
    expect(run("1", 0)).toEqual({ ok: true, value: false });
  });

  it("rejects a rule over the source size limit", () => {
    const big = Array.from({ length: 300 }, (_, i) => `reward > ${i}.0`).join(" || ");
    expect(rejection(big)).toMatchObject({ reason: "too_long" });
  });

  it("rejects an oversized AST even when the source is short enough", () => {
    const wide = Array.from({ length: 120 }, () => "turns > 1").join(" || ");
    expect(wide.length).toBeLessThan(2000);
    expect(rejection(wide)).toMatchObject({ reason: "too_large", message: expect.stringContaining("300 AST nodes") });
  });

  it("rejects a rule nested too deep", () => {
    const deep = `${"(".repeat(40)}reward${" + 1.0)".repeat(40)} > 0.0`;
    expect(rejection(deep, { maxNodes: 1000 })).toMatchObject({ reason: "too_deep" });
  });

  it("rejects a rule calling an unknown function, naming it", () => {
    expect(rejection("exec('rm -rf /') == ''")).toEqual({ ok: false, reason: "unknown_function", message: "unknown function 'exec'" });
    expect(rejection("response.lowerAscii() == 'x'")).toMatchObject({ reason: "unknown_function", message: "unknown function 'lowerAscii'" });
    expect(rejection("timestamp('2024-01-01T00:00:00Z') != null")).toMatchObject({ reason: "unknown_function" });
  });

  it("rejects nested comprehensions but allows chained ones", () => {
    expect(rejection("tool_calls.exists(c, tool_results.exists(r, r.name == c.name))")).toMatchObject({ reason: "nested_comprehension" });
    expect(compileRule("tool_calls.filter(c, c.name == 'bash').map(c, c.args).exists(a, a.contains('git'))", opts).ok).toBe(true);
  });

  it("rejects parse errors, type errors and non-boolean predicates with a clear message", () => {
    expect(rejection("reward >")).toMatchObject({ reason: "parse_error" });
    expect(rejection("rewards > 0.5")).toMatchObject({ reason: "type_error", message: "undeclared reference to 'rewards'" });
    expect(rejection("tool_calls.exists(c, c.nme == 'bash')")).toMatchObject({ reason: "type_error", message: "tool_call has no field 'nme'" });
    expect(rejection("response + 1 == 'x'")).toMatchObject({ reason: "type_error", message: "no overload of '+' accepts (string, int)" });
    expect(rejection("size(response, 2) > 1")).toMatchObject({ reason: "type_error" });
    expect(rejection("final_answer(response)")).toMatchObject({ reason: "wrong_result_type", message: "rule yields string; bool is required" });
  });

  it("vets regex patterns when the rule is saved", () => {
    expect(rejection("response.matches('(a')")).toMatchObject({ reason: "bad_pattern", message: expect.stringContaining("invalid RE2 pattern") });
    expect(rejection("response.matches('(.)\\\\1')")).toMatchObject({ reason: "bad_pattern" });
    expect(rejection("response.matches(prompt)")).toMatchObject({ reason: "bad_pattern", message: "matches: the pattern must be a string literal" });
    expect(rejection(`response.matches('${"a".repeat(600)}')`)).toMatchObject({ reason: "bad_pattern", message: expect.stringContaining("longer than 512") });
  });

  it("evaluates a catastrophic-backtracking regex on a long string in linear time (RE2)", () => {
    const r = compileRule("response.matches('(a+)+$') && !response.matches('^(a|aa)+$')", opts);
    if (!r.ok) throw new Error(r.message);
    // A backtracking engine needs ~2^n steps for n 'a's before a non-matching '!'.
    const jsStyleKiller = `${"a".repeat(30)}!`;
    const long = `${"a".repeat(50_000)}!`;
    const started = performance.now();
    const short = r.rule.evaluate(rolloutBindings(caseRollout({ name: "s", rollout: { response: jsStyleKiller } })));
    const big = r.rule.evaluate(rolloutBindings(caseRollout({ name: "l", rollout: { response: long } })));
    const elapsed = performance.now() - started;
    expect(short).toEqual({ ok: true, value: false });
    expect(big).toEqual({ ok: true, value: false });
    expect(elapsed).toBeLessThan(2000);
  });

  it("reports a runtime error instead of throwing", () => {
    const r = compileRule("components['missing'] > 0.0", opts);
    if (!r.ok) throw new Error(r.message);
    const out = r.rule.evaluate(rolloutBindings(caseRollout({ name: "x", rollout: { response: "" } })));
    expect(out.ok).toBe(false);
  });
});

describe("input caps", () => {
  it("keeps the head and the tail of an over-long string", () => {
    const s = `START${"x".repeat(10_000)}A: 42`;
    const capped = capString(s, 200);
    expect(capped.length).toBe(200);
    expect(capped.startsWith("START")).toBe(true);
    expect(capped.endsWith("A: 42")).toBe(true);
    expect(capped).toContain("characters cut");
    expect(capString("short", 200)).toBe("short");
  });

  it("caps what a rollout feeds to CEL", () => {
    const r = caseRollout({ name: "x", rollout: { response: "y".repeat(100_000) } });
    const b = rolloutBindings(r, {}, { maxStringChars: 1000, maxListItems: 2, maxArgChars: 10 });
    expect((b.response as string).length).toBe(1000);
  });
});
