import {
  compileHarness,
  diagnosticGap,
  evolveHarness,
  type BranchRollouts,
  type CompiledHarness,
  type DiagnosticGap,
  type Domain,
  type Harness,
  type HarnessDefinition,
  type HarnessRegistration,
  type HealthReport,
  type Label,
  type RetroValidation,
} from "@evotrainer/core";
import type { Rollout } from "@evotrainer/contract";

/** A registered harness version: the round it came in, and the replay evidence it was registered on. */
export interface HarnessVersion {
  version: number;
  round: number;
  definition: Harness;
  compiled: CompiledHarness;
  /** Absent for version 1 (the domain's catalog, or the starting harness the test gave). */
  registration?: HarnessRegistration;
}

/** Step 2 of one round: the gap check on the frontier and, on a gap, the replay of every candidate. */
export interface HarnessCheck {
  round: number;
  fromVersion: number;
  gap: DiagnosticGap;
  validations: RetroValidation[];
  registration?: HarnessRegistration;
}

export function compiled(definition: HarnessDefinition): CompiledHarness {
  const result = compileHarness(definition);
  if (!result.ok) throw new Error(`harness v${definition.version} does not compile: ${result.rejections.map((r) => `${r.id}: ${r.message}`).join("; ")}`);
  return result.harness;
}

export interface HarnessCheckInput {
  round: number;
  domain: Domain;
  current: HarnessVersion;
  /** The frontier's diagnosis under the current harness, and what it was made from. */
  report: HealthReport;
  rollouts: readonly Rollout[];
  labels: readonly Label[];
  /** The frontier's promotion score at the start of each round so far, oldest first. */
  scoreHistory: readonly number[];
  /** Every settled branch of the run with its final training rollouts. */
  branches: readonly BranchRollouts[];
  successThreshold: number;
  /** The run's round budget: the harness checks it may make, over which the level is divided. */
  rounds: number;
}

/**
 * Whether the harness explains what goes wrong on the frontier; when it does not, core's harness
 * evolution replays the candidate detectors over the run's past branches and registers those whose
 * rate separates promoted from rejected branches as the next harness version.
 */
export function checkHarness(input: HarnessCheckInput): { check: HarnessCheck; next?: HarnessVersion } {
  const gap = diagnosticGap(
    { report: input.report, scoreHistory: input.scoreHistory, rollouts: input.rollouts, labels: input.labels },
    { successThreshold: input.successThreshold },
  );
  const evolution = evolveHarness({ harness: input.current.definition, domain: input.domain, gap, branches: input.branches, rounds: input.rounds });
  const check: HarnessCheck = {
    round: input.round,
    fromVersion: input.current.version,
    gap,
    validations: evolution.validations,
    ...(evolution.registration ? { registration: evolution.registration } : {}),
  };
  if (!evolution.registration) return { check };
  return {
    check,
    next: {
      version: evolution.harness.version,
      round: input.round,
      definition: evolution.harness,
      compiled: compiled(evolution.harness),
      registration: evolution.registration,
    },
  };
}
