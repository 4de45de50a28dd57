import { spentByRounds } from "@evotrainer/core";
import { z } from "zod";
import type { Tx } from "./events.ts";

// A verdict's checks as core's verdict stores them; only the name and numbers are read here.
const checksSchema = z.array(z.object({ name: z.string(), numbers: z.record(z.string(), z.unknown()) }).loose());

/**
 * The share of a run's alpha its rounds before `round` spent, read from the verdicts they stored:
 * each candidate's control check records what its round spent (the round's alpha when the gate
 * judged it, 0 when there were not enough controls to judge).
 */
export async function alphaSpentBefore(db: Pick<Tx, "verdict">, runId: string, round: number): Promise<number> {
  const verdicts = await db.verdict.findMany({
    where: { branch: { runId, kind: "candidate", round: { lt: round } } },
    select: { checks: true, branch: { select: { round: true } } },
  });
  return spentByRounds(verdicts.map((v) => ({ round: v.branch.round, checks: checksSchema.parse(v.checks) })));
}
