import type { LineageEntry } from "@evotrainer/core";

/**
 * Reasons people gave for their vetoes anywhere in the run: a person who says why names what to
 * stay away from. The autonomy policy's vetoes only list failed gate checks (metric names, not
 * advice), so they count as failures of their intervention but steer nothing.
 */
export function humanVetoReasons(lineage: readonly LineageEntry[]): string[] {
  return lineage.flatMap((e) => e.decisions.flatMap((d) => (d.kind === "veto" && d.actor.kind === "human" ? [d.reason] : [])));
}
