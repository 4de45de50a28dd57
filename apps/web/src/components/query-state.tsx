import type { ReactNode } from "react";

/** Loading and error states for a client query, so no page renders blank. */
export function QueryState({ isPending, error, children }: { isPending: boolean; error: { message: string } | null; children: () => ReactNode }) {
  if (error)
    return (
      <p className="error" role="alert">
        Could not load: {error.message}
      </p>
    );
  if (isPending) return <p className="muted">Loading…</p>;
  return <>{children()}</>;
}
