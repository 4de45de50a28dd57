import { resolve } from "node:path";
import { uncontrolledRunWarning, unlimitedValidityWarning, type RunConfig } from "@evotrainer/core";
import { buildRunReport, createDatabase, createRun } from "@evotrainer/db";
import { askTrainerArgs, createProducerConnection, Producer, QueueName, trainerArgsWaits, uncheckedTrainerArgsWarning } from "@evotrainer/queue";
import { whileUnreachable } from "@evotrainer/db/connection";
import { cliPostgresStatus } from "../database-wait.ts";
import { loadCliEnv } from "../env.ts";
import { localOrganization } from "../local-organization.ts";
import { progressLine, progressWithReason } from "../progress.ts";
import { readRunConfig } from "../config-files.ts";
import { remoteCredentials, type Credentials } from "../remote/credentials.ts";
import { checkTrainerArgs } from "../trainer-args.ts";
import { onServer } from "../remote/remote-api.ts";
import { waitForRun } from "./wait.ts";

/** `evotrainer run <config.yaml> [--wait] [--json]`: creates a run and queues its base branch. */
export async function runCommand(args: string[]): Promise<number> {
  const file = args.find((a) => !a.startsWith("--"));
  if (!file) throw new Error("usage: evotrainer run <config.yaml> [--wait] [--json] [--org <organizationId>]");
  const json = args.includes("--json");
  const config = readRunConfig(file);
  // Before anything starts: a person can still stop here.
  for (const warning of [uncontrolledRunWarning(config), unlimitedValidityWarning(config)]) if (warning) console.error(`evotrainer: ${file}: warning: ${warning}`);
  const remote = remoteCredentials();
  if (remote) return remoteRun(remote, file, config, args);
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const connection = createProducerConnection(env.REDIS_URL);
  const producer = new Producer(connection, env.EVO_QUEUE_PREFIX);
  try {
    await connection.connect();
    // Before the run's rows: a key the trainer would refuse at its first step refuses the run now.
    const checked = await checkTrainerArgs(file, config, () => askTrainerArgs(producer, config, trainerArgsWaits(env)));
    if (checked) console.error(`evotrainer: ${file}: ${checked}`);
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: await localOrganization(db) }, { configPath: resolve(file) });
    await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
    if (!json) console.error(`evotrainer: run ${runId} created from ${file}; its base branch is queued`);
    if (!args.includes("--wait")) {
      if (json) console.log(JSON.stringify({ runId }));
      return 0;
    }
    // The run goes on in the workers while this process waits: a PostgreSQL away only delays the report.
    const status = cliPostgresStatus(env.DATABASE_URL, "waiting for it (Ctrl-C stops the waiting, not the run)");
    const report = await waitForRun(() => whileUnreachable(status, () => buildRunReport(db, runId)), (r) => {
      if (!json) console.error(progressLine(r));
    });
    if (json) console.log(JSON.stringify(report, null, 2));
    else console.log(progressWithReason(await whileUnreachable(status, () => buildRunReport(db, runId))));
    return report.status === "completed" ? 0 : 1;
  } finally {
    await producer.close();
    connection.disconnect();
    await db.$disconnect();
  }
}

/** The same, on the server the CLI is logged in to: the config is read and checked here, the run starts there. */
async function remoteRun(remote: Credentials, file: string, config: RunConfig, args: string[]): Promise<number> {
  const json = args.includes("--json");
  const orgAt = args.indexOf("--org");
  const { runId, trainerArgs } = await onServer(remote, (api) => api.run.create.mutate({ config, ...(orgAt >= 0 ? { organizationId: args[orgAt + 1] } : {}) })).catch((error: Error) => {
    throw new Error(`${file}: ${error.message}`);
  });
  if (trainerArgs?.verdict === "unchecked") console.error(`evotrainer: ${file}: ${uncheckedTrainerArgsWarning(trainerArgs.reason)}`);
  if (!json) console.error(`evotrainer: run ${runId} created on ${remote.server} from ${file}; its base branch is queued`);
  if (!args.includes("--wait")) {
    if (json) console.log(JSON.stringify({ runId }));
    return 0;
  }
  const report = await waitForRun(
    () => onServer(remote, (api) => api.run.report.query({ runId })),
    (r) => {
      if (!json) console.error(progressLine(r));
    },
  );
  console.log(json ? JSON.stringify(report, null, 2) : progressWithReason(report));
  return report.status === "completed" ? 0 : 1;
}
