import { z } from "zod";
import type { Tx } from "./events.ts";

// What a verdict stored of its round's test: the check's numbers, as core's verdict writes them.
const controlCheckSchema = z.object({ name: z.literal("main_score_vs_control"), numbers: z.object({ spent: z.number().min(0).max(1) }) });
const checksSchema = z.array(z.unknown());

/**
 * The share of a run's alpha its rounds before `round` spent, read from the verdicts they stored:
 * each candidate's control check records what its round spent (the round's alpha when the gate
 * judged it, 0 when there were not enough controls to judge), and a round counts once.
 */
export async function alphaSpentBefore(db: Pick<Tx, "verdict">, runId: string, round: number): Promise<number> {
  const verdicts = await db.verdict.findMany({
    where: { branch: { runId, kind: "candidate", round: { lt: round } } },
    select: { checks: true, branch: { select: { round: true } } },
  });
  const perRound = new Map<number, number>();
  for (const v of verdicts) {
    for (const check of checksSchema.parse(v.checks)) {
      const parsed = controlCheckSchema.safeParse(check);
      if (!parsed.success) continue;
      perRound.set(v.branch.round, Math.max(perRound.get(v.branch.round) ?? 0, parsed.data.numbers.spent));
    }
  }
  return [...perRound.values()].reduce((a, b) => a + b, 0);
}
