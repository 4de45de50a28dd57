import {
  applyIntervention, compileDetector, offersFactor, contentHash, interventionKey, verifyDetectorCases,
  type Detector, type Intervention, type LockedEvaluation, type ProposerInput,
} from "@evotrainer/core";
import { mentionsFactor } from "../lineage/factor-mentions.ts";
import { triedOnParent } from "../lineage/tried-on-parent.ts";
import type { ProposalOutput } from "./proposal-output.ts";

export interface CheckedOutput {
  /** Interventions that pass every gate, at most K, provenance stamped. */
  interventions: Intervention[];
  /** Detectors that pass the CEL guards and their own cases: candidates for retro-validation. */
  detectors: Detector[];
  /** Why each refused item was refused, worded for the model to correct. */
  rejections: string[];
}

/**
 * Puts a model's answer through the gates every proposal faces: applyIntervention's single-factor
 * and locked-evaluation checks (and nothing already tried on this parent), and, for detectors,
 * the CEL guards and the detector's own must-match / must-not-match cases.
 */
export function checkOutput(
  output: ProposalOutput,
  input: ProposerInput,
  locked: LockedEvaluation,
  provenance: Intervention["provenance"],
): CheckedOutput {
  const rejections: string[] = [];
  const tried = triedOnParent(input);
  const revised = (factor: string) => input.revision !== undefined && mentionsFactor(input.revision, factor);
  const interventions: Intervention[] = [];
  const keys = new Set<string>();
  output.interventions.forEach((proposed, index) => {
    const intervention: Intervention = { ...proposed, provenance };
    const name = `intervention ${index + 1} (factor ${proposed.factor})`;
    const applied = applyIntervention(input.recipe, intervention, locked);
    if (!applied.ok) {
      rejections.push(`${name}: ${applied.reason}: ${applied.message}`);
      return;
    }
    if (!offersFactor(input.factors, proposed.factor)) {
      rejections.push(`${name}: the run's trainer cannot run this factor; choose one of the listed factors`);
      return;
    }
    const rendered = input.renders(applied.recipe);
    if (!rendered.ok) {
      rejections.push(`${name}: ${rendered.message}; choose one of the listed values`);
      return;
    }
    const key = interventionKey(intervention);
    const outcome = tried.get(key);
    if (outcome === "exists" || (outcome === "failed" && !revised(intervention.factor))) {
      rejections.push(`${name}: already tried on this parent (${outcome === "failed" ? "it failed" : "it exists"}); propose something new`);
      return;
    }
    if (keys.has(key)) {
      rejections.push(`${name}: repeats an earlier intervention of this answer`);
      return;
    }
    keys.add(key);
    interventions.push(intervention);
  });

  const detectors: Detector[] = [];
  for (const proposed of output.detectors ?? []) {
    const compiled = compileDetector({
      ...proposed,
      // Detector rows are shared across runs and immutable per id and version: the rule's own hash
      // keeps a model's rule from ever colliding with another rule under the same label.
      id: `llm.${input.domain}.${proposed.label}.${contentHash(proposed).slice(0, 12)}`,
      version: 1,
      domains: [input.domain],
      validity: false,
    });
    if (!compiled.ok) {
      rejections.push(`detector ${proposed.label}: ${compiled.field}: ${compiled.reason}: ${compiled.message}`);
      continue;
    }
    const failures = verifyDetectorCases(compiled.detector);
    if (failures.length > 0) {
      const cases = failures.map((f) => `case "${f.caseName}" expected ${f.expected ? "a match" : "no match"}, got ${f.got}`);
      rejections.push(`detector ${proposed.label}: fails its own cases: ${cases.join("; ")}`);
      continue;
    }
    detectors.push(compiled.detector.definition);
  }
  return { interventions: interventions.slice(0, input.k), detectors, rejections };
}
