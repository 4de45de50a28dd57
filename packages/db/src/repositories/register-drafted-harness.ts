import type { DraftRegistration, Harness } from "@evotrainer/core";
import type { Database } from "../client.ts";
import type { Domain } from "../generated/prisma/client.ts";
import { recordEvent } from "./events.ts";
import { registerHarnessVersion } from "./harness-versions.ts";
import { json } from "./json.ts";

export type DraftedHarnessOutcome = { ok: true; harnessVersionId: string; version: number } | { ok: false; message: string };

/**
 * Stores the harness version a person registered with a drafted detector, makes it the run's, and
 * records who did it and the backtest it rests on. The draft was backtested against one harness
 * version: if the run moved on meanwhile (the loop evolved it, or someone else registered), nothing
 * is written and the caller is told to backtest again.
 */
export async function registerDraftedHarness(
  db: Database,
  input: { runId: string; basedOnHarnessVersionId: string; domain: Domain; harness: Harness; registration: DraftRegistration; userId: string },
): Promise<DraftedHarnessOutcome> {
  return db.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<{ harnessVersionId: string | null }[]>`SELECT "harnessVersionId" FROM "Run" WHERE id = ${input.runId} FOR UPDATE`;
    if (locked?.harnessVersionId !== input.basedOnHarnessVersionId) {
      return { ok: false as const, message: "the run's harness changed since this draft was backtested; backtest it again on the current harness" };
    }
    const { registration } = input;
    const id = await registerHarnessVersion(tx, {
      runId: input.runId,
      parentId: input.basedOnHarnessVersionId,
      version: registration.toVersion,
      domain: input.domain,
      definition: input.harness,
      evidence: json({ proposedBy: "person", drafted: registration }),
    });
    await tx.run.update({ where: { id: input.runId }, data: { harnessVersionId: id } });
    await recordEvent(tx, {
      runId: input.runId,
      type: "harness_version",
      actor: `user:${input.userId}`,
      payload: json({
        version: registration.toVersion,
        added: [{ detector: registration.detectorId, label: registration.label, reasons: [`drafted from the unexplained failures "${registration.clusterKey}"`] }],
      }),
    });
    return { ok: true as const, harnessVersionId: id, version: registration.toVersion };
  });
}
