import { z } from "zod";
import { jsonPatchSchema } from "./json-patch.ts";

export const provenanceSchema = z.strictObject({
  kind: z.enum(["rule", "skill", "llm", "human"]),
  // Rule id, skill id, model name or user id: whoever or whatever proposed it.
  ref: z.string().optional(),
});
export type Provenance = z.infer<typeof provenanceSchema>;

export const effectDirectionSchema = z.enum(["up", "down"]);
export type EffectDirection = z.infer<typeof effectDirectionSchema>;

/** A proposed single-factor change to a recipe, falsifiable by its targeted metric. */
export const interventionSchema = z.strictObject({
  hypothesis: z.string().min(1),
  targetMetric: z.string().min(1),
  factor: z.string().min(1),
  patch: jsonPatchSchema.min(1),
  expectedEffect: z.strictObject({
    direction: effectDirectionSchema,
    // Expected change of the targeted metric, in its own units.
    size: z.number().nonnegative().optional(),
    note: z.string().optional(),
  }),
  falsification: z.string().min(1),
  provenance: provenanceSchema,
});
export type Intervention = z.infer<typeof interventionSchema>;
