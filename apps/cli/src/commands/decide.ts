import { createDatabase, recordEvent } from "@evotrainer/db";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { loadCliEnv } from "../env.ts";

const kinds = ["approve", "revise", "veto"] as const;

/** `evotrainer decide <branchId> approve|revise|veto --note "…"`: a person's decision on a waiting branch. */
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
    const branch = await db.branch.findUnique({ where: { id: branchId } });
    if (!branch) throw new Error(`no branch with id ${branchId}`);
    if (branch.status !== "awaiting_decision") throw new Error(`branch v${branch.version} is ${branch.status}, not awaiting a decision`);
    await db.$transaction(async (tx) => {
      await tx.decision.create({
        data: { branchId, stage: "completion", kind: kind as (typeof kinds)[number], actorType: "human", reason: note ?? "approved from the CLI", ...(kind === "revise" ? { instructions: note } : {}) },
      });
      await recordEvent(tx, { runId: branch.runId, branchId, type: "decision", actor: "cli", payload: { kind: kind!, note: note ?? null, recorded: true } });
    });
    await connection.connect();
    await producer.enqueue(QueueName.Decide, { runId: branch.runId, branchId });
    console.log(`evotrainer: ${kind} recorded for branch v${branch.version}; the worker resumes the run`);
    return 0;
  } finally {
    await producer.close();
    connection.disconnect();
    await db.$disconnect();
  }
}
