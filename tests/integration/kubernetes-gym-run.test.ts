import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse, stringify } from "yaml";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { FakeKubeApi } from "../support/fake-kube-api.ts";
import { FakeKubelet } from "../support/fake-kubelet.ts";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";

// A database of its own: \`nodes sync\` disables the nodes its file does not list, installation-wide.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), "evo-k8s-run-"));
// The artifacts volume: mounted at the same path in the "pods" (local processes) and the control plane.
const volume = join(dir, "volume");
const namespace = "training";
const db = createDatabase(databaseUrl);

const cli = (args: string[]) => runCli(args, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });

function distinctUids(jobId: string): number {
  const uids = new Set<string>();
  for (const split of ["train", "eval"]) {
    const folder = join(volume, jobId, "output", "rollouts", split);
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name)) {
      for (const line of readFileSync(join(folder, name), "utf8").split("\n")) if (line.trim()) uids.add((JSON.parse(line) as { uid: string }).uid);
    }
  }
  return uids.size;
}

describe("a gym run on a Kubernetes pool, against a local server speaking the batch/v1 and core/v1 API with pods run as local processes", () => {
  let api: FakeKubeApi;
  let kubelet: FakeKubelet;
  const previousKubeconfig = process.env.KUBECONFIG;

  beforeAll(async () => {
    mkdirSync(volume);
    api = await FakeKubeApi.start();
    // The worker finds the cluster as kubectl does: through KUBECONFIG.
    process.env.KUBECONFIG = api.writeKubeconfig(join(dir, "kubeconfig"));
    const pool = { name: "gym-pool", namespace, image: "ghcr.io/example/evotrainer-gym:1", nodeSelector: { "nvidia.com/gpu.product": "H100" }, artifacts: { claimName: "evo-artifacts", mountPath: volume, localPath: volume } };
    writeFileSync(join(dir, "compute.yaml"), stringify({ pools: [pool] }));
    const synced = await cli(["nodes", "sync", join(dir, "compute.yaml")]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toContain("1 Kubernetes pool(s) and 0 Slurm cluster(s) synced");
  });

  afterAll(async () => {
    kubelet?.stop();
    await api?.close();
    if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previousKubeconfig;
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("trains every branch as a batch/v1 Job on the pool; a preempted pod is not a failure and its replacement finishes the job", async () => {
    const base = parse(readFileSync("examples/gym-swe.yaml", "utf8")) as Record<string, unknown>;
    const config = {
      ...base,
      name: "k8s-gym",
      executor: "kubernetes",
      resources: { gpusPerJob: 1, pool: "gym-pool" },
      search: { proposals: 3, keep: 1, stepsPerBranch: 20, proposer: "rule" },
      budget: { gpuSeconds: 900, branches: 2, rounds: 1 },
    };
    writeFileSync(join(dir, "run.yaml"), stringify(config));

    // The base branch's pod is evicted once its first rollouts are in Postgres.
    let baseJobName: string | undefined;
    kubelet = new FakeKubelet(api, namespace, {
      job: (name) => (baseJobName ??= name) === name,
      when: async () => (await db.rollout.count({ where: { run: { name: "k8s-gym" } } })) > 0,
    });
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: join(dir, "jobs"), EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "3000" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
    try {
      const created = await cli(["run", join(dir, "run.yaml"), "--json"]);
      expect(created.code, created.stderr).toBe(0);
      const { runId } = JSON.parse(created.stdout) as { runId: string };
      const run = await until(
        "the run to end",
        async () => {
          const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
          return row.status === "completed" || row.status === "failed" ? row : null;
        },
        180_000,
      );
      expect(run.status).toBe("completed");
      expect(kubelet.preempted).toHaveLength(1);

      const pool = await db.gpuNode.findUniqueOrThrow({ where: { name: "gym-pool" } });
      const jobs = await db.job.findMany({ where: { branch: { runId } }, orderBy: { createdAt: "asc" } });
      expect(jobs.length).toBeGreaterThanOrEqual(3); // base, child, sealed evaluation
      for (const job of jobs) {
        // Preemption used no retry of ours: every job succeeded on its first launch.
        expect(job).toMatchObject({ executor: "kubernetes", nodeId: pool.id, state: "succeeded", attempts: 1, gpuCount: 1 });
        expect(await db.rollout.count({ where: { jobId: job.id } }), `job ${job.id}`).toBe(distinctUids(job.id));
      }
      expect(await db.event.count({ where: { runId, type: { in: ["job_retry", "failure"] } } })).toBe(0);

      // After the run the worker applies retention on the artifacts volume, as it mounts it: the
      // checkpoints of branches neither promoted nor best go, no pod needed, and the report counts them.
      const retention = await until("the worker applied retention to the run", () => db.event.findFirst({ where: { runId, type: "retention_applied" } }));
      const ended = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { branches: { include: { jobs: { where: { kind: "train" } } } } } });
      const trained = ended.branches.filter((b) => b.jobs.length > 0);
      const checkpointsOf = (b: (typeof trained)[number]) => b.jobs.map((j) => join(volume, j.id, "output", "checkpoints"));
      const unkept = trained.filter((b) => b.id !== ended.bestBranchId && b.status !== "promoted");
      const removed = unkept.flatMap(checkpointsOf);
      const deleted = (retention.payload as { deleted: { path: string; where: string }[] }).deleted;
      expect(deleted.map((d) => d.path).sort()).toEqual([...removed].sort());
      expect(deleted.every((d) => d.where === "gym-pool")).toBe(true);
      for (const path of removed) expect(existsSync(path), path).toBe(false);
      for (const b of trained.filter((x) => !unkept.includes(x))) for (const path of checkpointsOf(b)) expect(existsSync(path), `kept v${b.version}`).toBe(true);
      console.log(`retention on the volume: ${trained.map((b) => `v${b.version} ${b.status}${unkept.includes(b) ? " (deleted)" : ""}`).join(", ")}`);

      // What the executor sent: one Job per job, with the pool's settings and the run's resources.
      const creates = api.requestsTo("POST", `/apis/batch/v1/namespaces/${namespace}/jobs`);
      expect(creates).toHaveLength(jobs.length);
      for (const create of creates) {
        const sent = create.body as { spec: { activeDeadlineSeconds: number; template: { spec: { nodeSelector: Record<string, string>; containers: Array<{ resources: { limits: Record<string, string> } }> } } } };
        expect(sent.spec.activeDeadlineSeconds).toBeGreaterThan(0);
        expect(sent.spec.activeDeadlineSeconds).toBeLessThanOrEqual(900);
        expect(sent.spec.template.spec.nodeSelector).toEqual({ "nvidia.com/gpu.product": "H100" });
        expect(sent.spec.template.spec.containers[0]!.resources.limits["nvidia.com/gpu"]).toBe("1");
      }
    } finally {
      await worker.shutdown();
    }
  }, 240_000);
});
