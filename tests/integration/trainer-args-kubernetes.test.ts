import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse, stringify } from "yaml";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp, type WorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { FakeKubeApi } from "../support/fake-kube-api.ts";
import { FakeKubelet } from "../support/fake-kubelet.ts";
import { TRL_PYTHON, trlUnavailable } from "../support/real-trainers.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// A database of its own: `nodes sync` disables the nodes its file does not list, installation-wide.
const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), "evo-trainer-args-k8s-"));
// The artifacts volume: mounted at the same path in the "pods" (local processes) and the control plane.
const volume = join(dir, "volume");
const namespace = "training";
const db = createDatabase(database.url);
// A worker runs here: the wait for it to take the question ends when it does, so it may be long
// without slowing the test, and a busy machine never turns a refusal into "unchecked".
const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_TRAINER_CHECK_PICKUP_S: "300" };
const unavailable = trlUnavailable();
// Never a silent skip: the reason is printed where CI logs show it.
if (unavailable) console.error(`\nREAL-TRAINER TESTS NOT RUN: ${unavailable}\n`);

const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>;
const k8sRun = (name: string, trainer: Record<string, unknown>) => ({
  ...example,
  name,
  adapter: "trl",
  executor: "kubernetes",
  resources: { gpusPerJob: 1, pool: "trl-pool" },
  trainer: { dataset: "/data/train.jsonl", ...trainer },
});

/** `evotrainer run` of a config, and the runs of its name the database then holds. */
async function run(config: Record<string, unknown>) {
  const file = join(dir, `${String(config.name)}.yaml`);
  writeFileSync(file, stringify(config));
  const result = await runCli(["run", file, "--json"], env);
  return { ...result, file, runs: await db.run.count({ where: { name: String(config.name) } }) };
}

describe("trainer arguments of a Kubernetes run, checked in a pod of its pool, against a local server speaking the batch/v1 and core/v1 API with pods run as local processes", () => {
  let api: FakeKubeApi;
  let kubelet: FakeKubelet;
  let worker: WorkerApp;
  const previousKubeconfig = process.env.KUBECONFIG;

  /** The checks' Jobs the worker created, and whether each is gone again. */
  const probeJobs = () =>
    api
      .requestsTo("POST", `/apis/batch/v1/namespaces/${namespace}/jobs`)
      .map((request) => (request.body as { metadata: { name: string } }).metadata.name)
      .filter((name) => name.startsWith("evo-probe-"))
      .map((name) => ({ name, gone: api.job(namespace, name) === undefined }));

  beforeAll(async () => {
    mkdirSync(volume);
    api = await FakeKubeApi.start();
    // Only the checks' pods run: a run that is created keeps its training Job pending.
    kubelet = new FakeKubelet(api, namespace, null, (name) => name.startsWith("evo-probe-"));
    // The worker finds the cluster as kubectl does; the CLI never needs it.
    process.env.KUBECONFIG = api.writeKubeconfig(join(dir, "kubeconfig"));
    const pool = { name: "trl-pool", namespace, image: "ghcr.io/example/evotrainer-trl:1", artifacts: { claimName: "evo-artifacts", mountPath: volume, localPath: volume } };
    writeFileSync(join(dir, "compute.yaml"), stringify({ pools: [pool] }));
    const synced = await runCli(["nodes", "sync", join(dir, "compute.yaml")], env);
    expect(synced.code, synced.stderr).toBe(0);
    const workerEnv = loadWorkerEnv({ ...env, EVO_JOBS_DIR: join(dir, "jobs"), EVO_RECONCILE_EVERY_MS: "60000" });
    worker = await startWorkerApp(workerEnv, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
  });

  afterAll(async () => {
    await worker?.shutdown();
    kubelet?.stop();
    await api?.close();
    if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previousKubeconfig;
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("refuses an interpreter the image lacks, naming it and the pool, deletes the check's Job and creates nothing", async () => {
    const missing = "/opt/no-venv/bin/python";
    const result = await run(k8sRun("k8s-missing-python", { python: missing, args: { per_device_train_batch_size: 4 } }));
    expect(result.code, result.stdout).toBe(1);
    expect(result.stderr).toContain(`trainer.python: ${missing} cannot be run (ENOENT); set trainer.python to the interpreter that has trl installed on Kubernetes pool "trl-pool" (image ghcr.io/example/evotrainer-trl:1)`);
    expect(result.runs).toBe(0);
    expect(probeJobs()).toEqual([{ name: expect.stringMatching(/^evo-probe-trainer-args-/), gone: true }]);
    expect(existsSync(join(volume, ".probes")) ? readdirSync(join(volume, ".probes")) : []).toEqual([]);
  });

  it.skipIf(unavailable !== null)("`evotrainer run` refuses a GRPOConfig key TRL does not take, by its field; good keys create the run (real TRL in .venv-trl as the image's python)", async () => {
    const before = probeJobs().length;
    const good = await run(k8sRun("k8s-good", { python: TRL_PYTHON, args: { per_device_train_batch_size: 4 } }));
    expect(good.code, good.stderr).toBe(0);
    expect(good.runs).toBe(1);
    expect(good.stderr).toContain('trainer arguments checked by trainer.python on Kubernetes pool "trl-pool"');
    // A known recipe passthrough key beside an unknown trainer.args key: only the unknown one is named.
    const typo = await run({ ...k8sRun("k8s-typo", { python: TRL_PYTHON, args: { epsilon_hgh: 0.28 } }), recipe: { ...(example.recipe as object), passthrough: { trl: { logging_steps: 1 } } } });
    expect(typo.code, typo.stdout).toBe(1);
    expect(typo.stderr).toContain(`${typo.file}: invalid run config (trainer arguments checked on Kubernetes pool "trl-pool"`);
    expect(typo.stderr).toContain("trainer.args.epsilon_hgh: TRL's GRPOConfig has no argument epsilon_hgh (did you mean epsilon_high?)");
    expect(typo.stderr).not.toContain("recipe.passthrough.trl.logging_steps");
    expect(typo.runs).toBe(0);
    // Each check ran as a Job of its own, deleted once it answered.
    expect(probeJobs().slice(before)).toEqual([expect.objectContaining({ gone: true }), expect.objectContaining({ gone: true })]);
  });
});
