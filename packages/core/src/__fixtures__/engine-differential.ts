// Test-only: the closure compiler against the interpreter, rule by rule, shared by the core and adapters tests.
import { parse } from "@bufbuild/cel";
import type { Rollout } from "@evotrainer/contract";
import { celToJson } from "../cel/cel-json.ts";
import { compileClosures, Fallback } from "../cel/closure.ts";
import { compileRule } from "../cel/compile.ts";
import type { DetectorDefinition } from "../harness/detector.ts";
import { ROLLOUT_VARIABLES, rolloutBindings } from "../harness/rollout-variables.ts";

/**
 * Runs every rule of the detectors through the closure and through the interpreter on each rollout;
 * returns the disagreements and how often a closure handed a rollout back to the interpreter.
 */
export function differential(detectors: readonly DetectorDefinition[], rollouts: readonly Rollout[]) {
  const rules = detectors.flatMap((d) => [d.when, ...(d.evidence ? [d.evidence] : [])].map((source, i) => {
    const rule = compileRule(source, { variables: ROLLOUT_VARIABLES });
    if (!rule.ok) throw new Error(rule.message);
    // A predicate's closure yields a CEL scalar; evidence's yields JSON (maps and lists included).
    const closures = compileClosures(parse(source).expr);
    const closure = closures && (i === 0 ? (b: Parameters<typeof closures.json>[0]) => celToJson(closures.value(b)) : closures.json);
    return { id: d.id, closure, interpret: rule.rule.interpret };
  }));
  const mismatches: string[] = [];
  let fallbacks = 0;
  let compared = 0;
  for (const r of rollouts) {
    const bindings = rolloutBindings(r);
    for (const rule of rules) {
      if (!rule.closure) continue;
      const ref = rule.interpret(bindings);
      let fast: unknown;
      try {
        fast = rule.closure(bindings);
      } catch (e) {
        if (!(e instanceof Fallback)) throw e;
        fallbacks++;
        continue;
      }
      compared++;
      const expected = ref.ok ? celToJson(ref.value) : { error: ref.error };
      if (JSON.stringify(fast) !== JSON.stringify(expected)) mismatches.push(`${rule.id} on ${r.uid}: ${JSON.stringify(fast)} != ${JSON.stringify(expected)}`);
    }
  }
  return { mismatches, fallbacks, compared };
}
