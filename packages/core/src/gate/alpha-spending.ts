/**
 * The run's error budget, spent over its rounds. Every round is a fresh test (new candidates, new
 * controls, often a new parent), so a run that gave each round the full alpha would promote some
 * null intervention with probability up to 1 − (1 − alpha)^rounds (19% over 4 rounds at 5%).
 *
 * Linear alpha spending (Lan & DeMets' spending-function idea with f(r) = alpha · r / R): by the end
 * of round r the run may have spent at most alpha · r / R in total. A round takes what that allows
 * minus what earlier rounds spent; a round that tested nothing spent nothing, so its share moves on.
 * By the union bound the chance of any false promotion over the run is at most the sum spent, which
 * never exceeds alpha, whatever the rounds' tests have in common (shared parents, carried noise).
 */
export function roundAlpha(args: { alpha: number; rounds: number; round: number; spentBefore: number }): number {
  const { alpha, rounds, round, spentBefore } = args;
  const allowed = (alpha * Math.min(Math.max(round, 0), rounds)) / rounds;
  return Math.max(0, allowed - spentBefore);
}

/**
 * What a run's judged rounds spent, from their verdicts' control checks: each records its round's
 * spend (`numbers.spent`), and a round counts once however many candidates it judged.
 */
export function spentByRounds(verdicts: readonly { round: number; checks: readonly { name: string; numbers: Record<string, unknown> }[] }[]): number {
  const perRound = new Map<number, number>();
  for (const v of verdicts) {
    for (const check of v.checks) {
      const spent = check.numbers.spent;
      if (check.name !== "main_score_vs_control" || typeof spent !== "number") continue;
      perRound.set(v.round, Math.max(perRound.get(v.round) ?? 0, spent));
    }
  }
  return [...perRound.values()].reduce((a, b) => a + b, 0);
}
