import type { Decision } from "@evotrainer/core";
import type { Decision as DecisionRow } from "@evotrainer/db";

/** A stored decision in core's shape (the proposer and the autonomy policy read these). */
export function coreDecision(row: DecisionRow): Decision {
  const actor = row.actorType === "human" && row.userId ? { kind: "human" as const, userId: row.userId } : { kind: "policy" as const };
  switch (row.kind) {
    case "approve":
      return { kind: "approve", stage: row.stage, actor, note: row.reason };
    case "revise":
      return { kind: "revise", stage: row.stage, actor, instructions: row.instructions ?? row.reason };
    case "veto":
      return { kind: "veto", stage: row.stage, actor, reason: row.reason };
  }
}
