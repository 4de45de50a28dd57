import { parse } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { differential } from "../__fixtures__/engine-differential.ts";
import { loadGsm8k, loadLiveCodeBench } from "../__fixtures__/real-data.ts";
import { CODE_DETECTORS, DETECTOR_CATALOG, MATH_DETECTORS } from "../catalog/index.ts";
import { caseRollout, compileDetector } from "../harness/detector.ts";
import { ROLLOUT_VARIABLES, rolloutBindings } from "../harness/rollout-variables.ts";
import { CLOSURE_HELPERS, compileClosures } from "./closure.ts";
import { helperSignatures } from "./functions.ts";
import { compileRule } from "./compile.ts";
import { T } from "./types.ts";

describe("closure-compiled CEL against the interpreter", () => {
  it("has a closure for every helper a rule may call", () => {
    expect(Object.keys(CLOSURE_HELPERS).sort()).toEqual(helperSignatures().map((s) => s.slice(0, s.indexOf("("))).sort());
  });

  it("compiles every catalog predicate (evidence maps stay with the interpreter)", () => {
    const notCompiled = DETECTOR_CATALOG.filter((d) => compileClosures(parse(d.when).expr) === undefined).map((d) => d.id);
    expect(notCompiled).toEqual([]);
  });

  it("gives the interpreter's labels and evidence on every catalog test case", () => {
    for (const def of DETECTOR_CATALOG) {
      const rollouts = [...(def.cases?.match ?? []), ...(def.cases?.noMatch ?? [])].map(caseRollout);
      const { mismatches, compared } = differential([def], rollouts);
      expect(mismatches, def.id).toEqual([]);
      expect(compared, def.id).toBeGreaterThan(0);
    }
  });

  it("gives the interpreter's labels and evidence on GSM8K and LiveCodeBench, without falling back", () => {
    const math = differential(MATH_DETECTORS, loadGsm8k().map((r) => r.rollout));
    const code = differential(CODE_DETECTORS, loadLiveCodeBench().map((r) => r.rollout));
    expect(math.mismatches).toEqual([]);
    expect(code.mismatches).toEqual([]);
    expect([math.fallbacks, code.fallbacks]).toEqual([0, 0]);
    expect(math.compared).toBeGreaterThan(1000);
  });

  it("keeps CEL's error semantics: false && error is false, and an error alone goes to the interpreter", () => {
    const rule = compileDetector({ id: "t.x", label: "x", version: 1, domains: ["math"], description: "d", when: "extra.missing == 1 && false" });
    if (!rule.ok) throw new Error(rule.message);
    const bindings = rolloutBindings(caseRollout({ name: "c", rollout: {} }));
    expect(rule.detector.when.evaluate(bindings)).toEqual({ ok: true, value: false });
    const err = compileRule("size(tool_calls[3].name) > 0", { variables: ROLLOUT_VARIABLES, expect: T.bool });
    if (!err.ok) throw new Error(err.message);
    expect(err.rule.evaluate(bindings)).toEqual(err.rule.interpret(bindings));
    expect(err.rule.evaluate(bindings).ok).toBe(false);
  });
});
