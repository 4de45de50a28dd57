import { z } from "zod";
import { rolloutSchema, type Rollout } from "@evotrainer/contract";
import type { CelInput } from "@bufbuild/cel";
import { compileRule, type CompiledRule, type RuleRejectionReason } from "../cel/compile.ts";
import type { RuleLimits } from "../cel/guards.ts";
import { T } from "../cel/types.ts";
import { ROLLOUT_VARIABLES, rolloutBindings, type RolloutContext } from "./rollout-variables.ts";

export const domainSchema = z.enum(["math", "code", "swe", "custom"]);
export type Domain = z.infer<typeof domainSchema>;

export const labelNameSchema = z.string().regex(/^[a-z][a-z0-9_]*$/, { error: "labels are lower_snake_case" });

/** A detector test case: a partial rollout (filled with neutral defaults) and its context. */
export const detectorCaseSchema = z.strictObject({
  name: z.string().min(1),
  rollout: z.record(z.string(), z.unknown()),
  context: z.strictObject({ maxResponseTokens: z.number().int().positive().optional() }).optional(),
});
export type DetectorCase = z.infer<typeof detectorCaseSchema>;

export const detectorSchema = z.strictObject({
  // Unique within a harness, e.g. "math.wrong_answer"; the label may be shared across domains.
  id: z.string().regex(/^[a-z][a-z0-9_.]*$/),
  label: labelNameSchema,
  version: z.number().int().positive(),
  domains: z.array(domainSchema).min(1),
  description: z.string().min(1),
  when: z.string().min(1),
  evidence: z.string().min(1).optional(),
  // A rollout a validity detector flags counts as a failure whatever its reward.
  validity: z.boolean().default(false),
  cases: z
    .strictObject({ match: z.array(detectorCaseSchema), noMatch: z.array(detectorCaseSchema) })
    .default({ match: [], noMatch: [] }),
});
export type DetectorDefinition = z.input<typeof detectorSchema>;
export type Detector = z.infer<typeof detectorSchema>;

/** One label on one rollout, reproducible from the detector version that produced it. */
export interface Label {
  rolloutUid: string;
  label: string;
  detectorId: string;
  detectorVersion: number;
  validity: boolean;
  evidence: unknown;
}

export interface CompiledDetector {
  definition: Detector;
  when: CompiledRule;
  evidence: CompiledRule | undefined;
  /** The label, undefined when the rollout is not flagged; an evaluation error is reported, never thrown. */
  apply(uid: string, bindings: Readonly<Record<string, CelInput>>): { label?: Label; error?: string };
}

export type DetectorCompileResult =
  | { ok: true; detector: CompiledDetector }
  | { ok: false; detectorId: string; field: "definition" | "when" | "evidence"; reason: RuleRejectionReason | "invalid_definition"; message: string };

export function compileDetector(input: DetectorDefinition, limits?: Partial<RuleLimits>): DetectorCompileResult {
  const parsed = detectorSchema.safeParse(input);
  if (!parsed.success) {
    return { ok: false, detectorId: String((input as { id?: unknown }).id ?? "?"), field: "definition", reason: "invalid_definition", message: z.prettifyError(parsed.error) };
  }
  const def = parsed.data;
  const when = compileRule(def.when, { variables: ROLLOUT_VARIABLES, expect: T.bool, limits });
  if (!when.ok) return { ok: false, detectorId: def.id, field: "when", reason: when.reason, message: when.message };
  let evidence: CompiledRule | undefined;
  if (def.evidence !== undefined) {
    const ev = compileRule(def.evidence, { variables: ROLLOUT_VARIABLES, limits });
    if (!ev.ok) return { ok: false, detectorId: def.id, field: "evidence", reason: ev.reason, message: ev.message };
    evidence = ev.rule;
  }
  const whenRule = when.rule;
  return {
    ok: true,
    detector: {
      definition: def,
      when: whenRule,
      evidence,
      apply(uid, bindings) {
        const hit = whenRule.evaluate(bindings);
        if (!hit.ok) return { error: hit.error };
        if (hit.value !== true) return {};
        // Evidence is only computed for flagged rollouts, so it may be costlier than the predicate.
        const ev = evidence?.evaluateJson(bindings);
        return {
          label: {
            rolloutUid: uid,
            label: def.label,
            detectorId: def.id,
            detectorVersion: def.version,
            validity: def.validity,
            evidence: ev === undefined ? null : ev.ok ? ev.json : { error: ev.error },
          },
        };
      },
    },
  };
}

const CASE_DEFAULTS = {
  uid: "case",
  split: "train",
  step: 0,
  taskId: "task",
  groupId: "group",
  sample: 0,
  prompt: "",
  reward: 0,
  responseTokens: 0,
};

/** A detector case as a full, valid rollout row. */
export function caseRollout(c: DetectorCase): Rollout {
  const merged = { ...CASE_DEFAULTS, ...c.rollout };
  return rolloutSchema.parse("response" in merged || "trajectory" in merged ? merged : { ...merged, response: "" });
}

export interface CaseFailure {
  detectorId: string;
  caseName: string;
  expected: boolean;
  got: boolean | string;
}

/** Runs a detector's own must-match / must-not-match cases; an empty list means it passes them all. */
export function verifyDetectorCases(detector: CompiledDetector): CaseFailure[] {
  const failures: CaseFailure[] = [];
  const { match, noMatch } = detector.definition.cases;
  for (const [cases, expected] of [[match, true], [noMatch, false]] as const) {
    for (const c of cases) {
      const r = caseRollout(c);
      const out = detector.apply(r.uid, rolloutBindings(r, c.context));
      const got = out.error !== undefined ? `error: ${out.error}` : out.label !== undefined;
      if (got !== expected) failures.push({ detectorId: detector.definition.id, caseName: c.name, expected, got });
    }
  }
  return failures;
}
