import type { DetectorDefinition, Domain } from "../harness/detector.ts";
import type { Harness } from "../harness/harness.ts";
import { candidateDetectors } from "./candidate-detectors.ts";
import type { DiagnosticGap } from "./gap-check.ts";
import { registerDetectors, type HarnessRegistration } from "./register-detectors.ts";
import { DEFAULT_RETRO_OPTIONS, retroValidate, type BranchRollouts, type ConfirmedLabel, type RetroOptions, type RetroValidation } from "./retro-validate.ts";

export interface EvolveInput {
  harness: Harness;
  domain: Domain;
  gap: DiagnosticGap;
  /** The run's finished branches with their rollouts. */
  branches: readonly BranchRollouts[];
  confirmed?: readonly ConfirmedLabel[];
  library?: readonly DetectorDefinition[];
  options?: Partial<RetroOptions>;
  /**
   * How many harness checks the run may make (its round budget): the same candidates are re-tested
   * at every one, so the run's level is divided over them as well as over the candidates.
   */
  rounds?: number;
}

export interface Evolution {
  /** The harness to diagnose with next: a new version when a candidate was registered. */
  harness: Harness;
  validations: RetroValidation[];
  registration?: HarnessRegistration;
}

/**
 * Step 2 of the loop: on a diagnostic gap, replay every candidate detector and register those that
 * earn it. Bonferroni over candidates × the run's checks keeps the chance of registering any
 * detector that separates nothing, over the whole run, at the run's level.
 */
export function evolveHarness(input: EvolveInput): Evolution {
  if (!input.gap.gap) return { harness: input.harness, validations: [] };
  const candidates = candidateDetectors(input.harness, input.domain, input.library);
  const level = (input.options?.level ?? DEFAULT_RETRO_OPTIONS.level) / (Math.max(1, candidates.length) * Math.max(1, input.rounds ?? 1));
  const validations = candidates.map((d) => retroValidate(d, input.branches, input.confirmed, { ...input.options, level, domain: input.domain }));
  const registered = registerDetectors(input.harness, validations);
  return registered.ok
    ? { harness: registered.harness, validations, registration: registered.registration }
    : { harness: input.harness, validations };
}
