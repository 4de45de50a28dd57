import { z } from "zod";
import { detectorCaseSchema, detectorSchema, interventionSchema } from "@evotrainer/core";

/**
 * An intervention as the model writes it: core's shape without provenance, which the proposer
 * stamps itself (a model does not get to claim a person or a skill proposed its change).
 */
export const llmInterventionSchema = interventionSchema.omit({ provenance: true });

/**
 * A detector the model asks for when it judges the harness blind to a failure. Id, version,
 * domains and validity are the harness's to assign; the cases are required because an untested
 * rule is never replayed.
 */
export const llmDetectorSchema = detectorSchema.pick({ label: true, description: true, when: true, evidence: true }).extend({
  cases: z.strictObject({ match: z.array(detectorCaseSchema).min(1), noMatch: z.array(detectorCaseSchema).min(1) }),
});
export type LlmDetector = z.infer<typeof llmDetectorSchema>;

/** What one proposal call must return. */
export const proposalOutputSchema = z.strictObject({
  diagnosis: z.string().min(1),
  hypotheses: z.array(z.string().min(1)).min(1),
  interventions: z.array(llmInterventionSchema).min(1),
  detectors: z.array(llmDetectorSchema).optional(),
});
export type ProposalOutput = z.infer<typeof proposalOutputSchema>;
