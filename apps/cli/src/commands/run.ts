import { buildRunReport, createDatabase, createRun } from "@evotrainer/db";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { loadCliEnv } from "../env.ts";
import { localOrganization } from "../local-organization.ts";
import { progressLine } from "../progress.ts";
import { readRunConfig } from "../config-files.ts";
import { waitForRun } from "./wait.ts";

/** `evotrainer run <config.yaml> [--wait] [--json]`: creates a run and queues its base branch. */
export async function runCommand(args: string[]): Promise<number> {
  const file = args.find((a) => !a.startsWith("--"));
  if (!file) throw new Error("usage: evotrainer run <config.yaml> [--wait] [--json]");
  const json = args.includes("--json");
  const config = readRunConfig(file);
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const connection = createProducerConnection(env.REDIS_URL);
  const producer = new Producer(connection, env.EVO_QUEUE_PREFIX);
  try {
    await connection.connect();
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: await localOrganization(db) });
    await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
    if (!json) console.error(`evotrainer: run ${runId} created from ${file}; its base branch is queued`);
    if (!args.includes("--wait")) {
      if (json) console.log(JSON.stringify({ runId }));
      return 0;
    }
    const report = await waitForRun(db, runId, (r) => {
      if (!json) console.error(progressLine(r));
    });
    if (json) console.log(JSON.stringify(report, null, 2));
    else console.log(progressLine(await buildRunReport(db, runId)));
    return report.status === "completed" ? 0 : 1;
  } finally {
    await producer.close();
    connection.disconnect();
    await db.$disconnect();
  }
}
