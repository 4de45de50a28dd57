/**
 * Holm's step-down procedure (Holm 1979): with K candidates tested in one round, the i-th smallest
 * p-value is compared with alpha / (K - i + 1), stopping at the first that fails. It keeps the
 * family-wise error (any null candidate promoted) at alpha under any dependence between the tests,
 * which matters here: every candidate of a round is compared with the same control.
 * Returns, per input position, the level its p-value was held to and whether it is rejected.
 */
export function holm(pValues: readonly number[], alpha: number): { level: number; rank: number; rejected: boolean }[] {
  const k = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const out = new Array<{ level: number; rank: number; rejected: boolean }>(k);
  let stillRejecting = true;
  order.forEach(({ p, i }, rank) => {
    const level = alpha / (k - rank);
    stillRejecting = stillRejecting && p <= level;
    out[i] = { level, rank: rank + 1, rejected: stillRejecting };
  });
  return out;
}
