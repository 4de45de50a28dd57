import { z } from "zod";

export const gateStageSchema = z.enum(["diagnosis", "design", "backtest", "completion"]);
export type GateStage = z.infer<typeof gateStageSchema>;

export const actorSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("human"), userId: z.string().min(1) }),
  z.strictObject({ kind: z.literal("policy") }),
]);

/** Approve, revise (with instructions for the proposer) or veto (with the reason, kept as negative evidence). */
export const decisionSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("approve"), stage: gateStageSchema, actor: actorSchema, note: z.string().optional() }),
  z.strictObject({ kind: z.literal("revise"), stage: gateStageSchema, actor: actorSchema, instructions: z.string().min(1) }),
  z.strictObject({ kind: z.literal("veto"), stage: gateStageSchema, actor: actorSchema, reason: z.string().min(1) }),
]);
export type Decision = z.infer<typeof decisionSchema>;
