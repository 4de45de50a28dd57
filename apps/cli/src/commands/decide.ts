import { createDatabase } from "@evotrainer/db";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { cliCaller } from "../cli-caller.ts";
import { loadCliEnv } from "../env.ts";

const kinds = ["approve", "revise", "veto"] as const;

/**
 * `evotrainer decide <branchId> approve|revise|veto --note "…"`: a person's decision on a waiting
 * branch, through the same API procedure as the dashboard's buttons, so it is stored the same way,
 * under the same guards and roles, with the caller as its actor.
 */
export async function decideCommand(args: string[]): Promise<number> {
  const [branchId, kind] = args;
  const noteAt = args.indexOf("--note");
  const note = noteAt >= 0 ? args[noteAt + 1] : undefined;
  if (!branchId || !kinds.includes(kind as (typeof kinds)[number])) {
    throw new Error('usage: evotrainer decide <branchId> approve|revise|veto --note "…" (revise and veto need a note)');
  }
  if (kind !== "approve" && !note) throw new Error(`a ${kind} needs --note "…": the reason is what the proposer learns from`);
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const connection = createProducerConnection(env.REDIS_URL);
  const producer = new Producer(connection, env.EVO_QUEUE_PREFIX);
  try {
    const api = await cliCaller(db, () => producer, env.EVO_API_KEY);
    const decided =
      kind === "approve" ? await api.decision.approve({ branchId, reason: note ?? "" })
      : kind === "revise" ? await api.decision.revise({ branchId, instructions: note! })
      : await api.decision.veto({ branchId, reason: note! });
    console.log(`evotrainer: ${kind} recorded for branch ${branchId} (now ${decided.status}); ${decided.enqueued ? "the worker resumes the run" : "Redis is away: the worker picks it up when it reconciles"}`);
    return 0;
  } catch (error) {
    // The API refuses with a TRPCError (not a dependency of the CLI): its message is the reason.
    if (error instanceof Error && error.name === "TRPCError") throw new Error(`${kind} refused: ${error.message}`);
    throw error;
  } finally {
    await producer.close();
    connection.disconnect();
    await db.$disconnect();
  }
}
