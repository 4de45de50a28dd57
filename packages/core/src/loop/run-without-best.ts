/** A branch of a run that is ending, with its last failed job's class and message when it failed. */
export interface EndingBranch {
  version: number;
  status: string;
  failure: { failureClass: string | null; message: string | null } | null;
}

export type RunWithoutBest =
  /** A person's stop came before any branch finished training: the run was stopped, it did not fail. */
  | { status: "cancelled"; error: null }
  | { status: "failed"; error: string };

/**
 * How a run ends that has no best branch (not even its base trained): why, in one line, naming the
 * failure a person would fix first (the base's, else the latest branch's).
 */
export function runWithoutBest(from: "running" | "stopping", branches: readonly EndingBranch[]): RunWithoutBest {
  if (from === "stopping") return { status: "cancelled", error: null };
  const failed = branches.filter((b) => b.status === "failed");
  const summary = branches.length > 0 && failed.length === branches.length ? `every branch failed (${failed.length})` : `no branch finished training (${countByStatus(branches)})`;
  const first = [...failed].sort((a, b) => a.version - b.version)[0];
  if (!first?.failure) return { status: "failed", error: summary };
  const cause = [first.failure.failureClass, first.failure.message].filter(Boolean).join(": ") || "no message";
  return { status: "failed", error: `${summary}; v${first.version}${first.version === 0 ? " (the base)" : ""}: ${cause}` };
}

function countByStatus(branches: readonly EndingBranch[]): string {
  const counts = new Map<string, number>();
  for (const b of branches) counts.set(b.status, (counts.get(b.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${status}`).join(", ") || "none";
}
