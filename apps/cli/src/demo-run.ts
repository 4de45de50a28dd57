import { buildRunReport, createRun, type Database } from "@evotrainer/db";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import type { CliEnv } from "./env.ts";
import { localOrganization } from "./local-organization.ts";
import { progressLine } from "./progress.ts";
import { readRunConfig } from "./config-files.ts";
import { waitForRun } from "./commands/wait.ts";

const DEMO_NAME = "quickstart-demo";

async function createDemoRun(db: Database, env: CliEnv, configFile: string): Promise<string> {
  const config = readRunConfig(configFile);
  const demo = { ...config, name: DEMO_NAME, autonomy: { ...config.autonomy, gateFirstBranchesPerDomain: 2 } };
  const { runId, baseBranchId } = await createRun(db, demo, { organizationId: await localOrganization(db) });
  const connection = createProducerConnection(env.REDIS_URL);
  await connection.connect();
  const producer = new Producer(connection, env.EVO_QUEUE_PREFIX);
  await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
  await producer.close();
  connection.disconnect();
  return runId;
}

/**
 * The quickstart's demo: a gym run of the loop in which a person decides on the first trained
 * child branch (the gate on a domain's first branches), so the dashboard has something to ask.
 * Prints the run's progress until it ends; returns a function that stops printing.
 */
export async function startDemoRun(db: Database, env: CliEnv, configFile: string, url: string): Promise<() => void> {
  // A demo still running from an earlier quickstart is picked up again by the worker; start no second one.
  const running = await db.run.findFirst({ where: { name: DEMO_NAME, status: "running" }, orderBy: { createdAt: "desc" } });
  const runId = running?.id ?? (await createDemoRun(db, env, configFile));
  console.log(`  demo run: ${url}/runs/${runId}  (its first trained branch waits for your decision)\n`);

  const stop = new AbortController();
  void waitForRun(() => buildRunReport(db, runId), (report) => {
    const waiting = report.branches.filter((b) => b.status === "awaiting_decision").map((b) => `v${b.version}`);
    console.log(`[demo] ${progressLine(report)}${waiting.length ? ` · waiting for you: ${waiting.join(", ")}` : ""}`);
  }, { signal: stop.signal }).catch(() => {});
  return () => stop.abort();
}
