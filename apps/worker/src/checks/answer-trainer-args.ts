import { refusedTrainerArgs, TrainerPythonError } from "@evotrainer/adapters";
import { runConfigSchema, type RunConfig } from "@evotrainer/core";
import type { Database } from "@evotrainer/db";
import type { Executor } from "@evotrainer/executors";
import type { Payload, QueueName, TrainerArgsAnswer } from "@evotrainer/queue";
import type { ExecutorPool } from "../executors/executor-pool.ts";

// From start to answer: one import of the trainer (torch included), and on Kubernetes a pod's
// scheduling and image pull; the asker waits a little longer than this.
const CHECK_TIMEOUT_SECONDS = 300;

export interface TrainerArgsDeps {
  db: Database;
  executors: ExecutorPool;
  log: (line: string) => void;
}

type Place = { executor: Executor } | { unreachable: string };

const describeLabels = (labels: Record<string, string>) => Object.entries(labels).map(([key, value]) => `${key}=${value}`).join(", ");

/**
 * The places the run's jobs could go, in the order they are tried: this machine; the enabled SSH
 * nodes that carry every label of `resources.nodeLabels`; the run's Kubernetes pool; the run's Slurm cluster (a probe there is an srun). A reason
 * instead when there is none.
 */
async function placesOf(deps: TrainerArgsDeps, config: RunConfig): Promise<Array<() => Promise<Executor>> | string> {
  if (config.executor === "local") return [async () => deps.executors.local];
  if (config.executor === "kubernetes") {
    const name = config.resources.pool;
    if (!name) return "a run with executor: kubernetes needs resources.pool";
    const pool = await deps.db.gpuNode.findFirst({ where: { name, executor: "kubernetes", enabled: true } });
    return pool ? [() => deps.executors.onNode(pool)] : `no enabled Kubernetes pool named "${name}" (\`evotrainer nodes sync\` adds it)`;
  }
  if (config.executor === "slurm") {
    const name = config.resources.cluster;
    if (!name) return "a run with executor: slurm needs resources.cluster";
    const cluster = await deps.db.gpuNode.findFirst({ where: { name, executor: "slurm", enabled: true } });
    return cluster ? [() => deps.executors.onNode(cluster)] : `no enabled Slurm cluster named "${name}" (\`evotrainer nodes sync\` adds it)`;
  }
  const wanted = Object.entries(config.resources.nodeLabels);
  const nodes = (await deps.db.gpuNode.findMany({ where: { executor: "ssh", enabled: true }, orderBy: { name: "asc" } })).filter((node) => {
    const labels = node.labels as Record<string, string>;
    return wanted.every(([key, value]) => labels[key] === value);
  });
  if (nodes.length === 0) return `no enabled SSH node${wanted.length ? ` carries the labels ${describeLabels(config.resources.nodeLabels)}` : ""} (\`evotrainer nodes sync\` adds them)`;
  return nodes.map((node) => () => deps.executors.onNode(node));
}

/**
 * A worker's answer to "does this run's trainer take its arguments?", asked of `trainer.python`
 * where the run's jobs would run (executor.probe). A place that cannot be reached (a node down, a
 * key missing, the cluster refusing) makes the next one be tried; when none answers, the answer is
 * `unchecked` with the reason, and the run's first job checks its arguments when it starts.
 */
export async function answerTrainerArgs(deps: TrainerArgsDeps, payload: Payload<typeof QueueName.TrainerArgs>): Promise<TrainerArgsAnswer> {
  const parsed = runConfigSchema.safeParse(payload.config);
  if (!parsed.success) return { verdict: "unchecked", reason: `the worker cannot read the run config: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  const config = parsed.data;
  const places = await placesOf(deps, config);
  if (typeof places === "string") return { verdict: "unchecked", reason: places };
  const failures: string[] = [];
  for (const open of places) {
    try {
      const executor = await open();
      const { problems, where } = await refusedTrainerArgs(config, (spec) => executor.probe(spec), CHECK_TIMEOUT_SECONDS);
      if (where === null) return { verdict: "accepted", where: "nowhere (the run sets no trainer arguments)" };
      return problems.length > 0 ? { verdict: "refused", where, problems } : { verdict: "accepted", where };
    } catch (error) {
      if (error instanceof TrainerPythonError) return { verdict: "refused", where: error.where, problems: [error.message] };
      const message = error instanceof Error ? error.message : String(error);
      deps.log(`trainer-args: check of run "${config.name}" failed: ${message}`);
      failures.push(message);
    }
  }
  return { verdict: "unchecked", reason: failures.join("; ") };
}
