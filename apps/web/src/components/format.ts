export const fmtScore = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(3));

export const fmtDelta = (x: number | null | undefined) => (x === null || x === undefined ? "—" : `${x >= 0 ? "+" : ""}${x.toFixed(3)}`);

export const fmtTime = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString().slice(0, 19).replace("T", " ") : "—");

export function budgetSeconds(budget: unknown): number | null {
  const value = (budget as { gpuSeconds?: unknown } | null)?.gpuSeconds;
  return typeof value === "number" ? value : null;
}

export const branchPath = (base: string, branchId: string) => `${base}/branches/${branchId}`;
