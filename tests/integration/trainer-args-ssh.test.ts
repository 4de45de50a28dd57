import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse, stringify } from "yaml";
import { appRouter, createCallerFactory, createContext } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { createProducerConnection, Producer, trainerArgsWaits } from "@evotrainer/queue";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp, type WorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { TRL_PYTHON, trlUnavailable } from "../support/real-trainers.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { startSshd, type Sshd } from "../support/sshd.ts";

// A database of its own: `nodes sync` disables the nodes its file does not list, installation-wide.
const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), "evo-trainer-args-ssh-"));
const workRoot = join(dir, "node");
const db = createDatabase(database.url);
const unavailable = trlUnavailable();
// Never a silent skip: the reason is printed where CI logs show it.
if (unavailable) console.error(`\nREAL-TRAINER TESTS NOT RUN: ${unavailable}\n`);

const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>;
// A worker runs here: the wait for it to take the question ends when it does, so it may be long
// without slowing the test, and a busy machine never turns a refusal into "unchecked".
const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_TRAINER_CHECK_PICKUP_S: "300" };

/**
 * A TRL run config for the node: two GPUs a job where the node has one, so that a run that is
 * created fails its placement at once instead of training.
 */
function sshRun(name: string, trainer: Record<string, unknown>) {
  return { ...example, name, adapter: "trl", executor: "ssh", resources: { gpusPerJob: 2, nodeLabels: { trainer: "trl" } }, trainer: { dataset: "/data/train.jsonl", ...trainer } };
}

/** `evotrainer run` of a config, and the runs of its name the database then holds. */
async function run(config: Record<string, unknown>, extraEnv: Record<string, string> = {}) {
  const file = join(dir, `${String(config.name)}.yaml`);
  writeFileSync(file, stringify(config));
  const result = await runCli(["run", file, "--json"], { ...env, ...extraEnv });
  return { ...result, file, runs: await db.run.count({ where: { name: String(config.name) } }) };
}

describe("trainer arguments of a run on SSH nodes, checked by a worker with the node's trainer.python over a real OpenSSH server on 127.0.0.1", () => {
  let sshd: Sshd;
  let worker: WorkerApp;

  beforeAll(async () => {
    sshd = await startSshd();
    const keyFile = join(dir, "node_key");
    writeFileSync(keyFile, sshd.privateKey, { mode: 0o600 });
    const compute = { nodes: [{ name: "loopback", host: "127.0.0.1", port: sshd.port, user: userInfo().username, key: { path: keyFile }, gpus: 1, labels: { trainer: "trl" }, workRoot }] };
    writeFileSync(join(dir, "compute.yaml"), stringify(compute));
    const synced = await runCli(["nodes", "sync", join(dir, "compute.yaml")], env);
    expect(synced.code, synced.stderr).toBe(0);
    const workerEnv = loadWorkerEnv({ ...env, EVO_JOBS_DIR: join(dir, "control-plane"), EVO_RECONCILE_EVERY_MS: "60000" });
    worker = await startWorkerApp(workerEnv, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
  });

  afterAll(async () => {
    await worker?.shutdown();
    await sshd?.stop();
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("refuses a trainer.python missing on the node, naming the interpreter and the node, and creates nothing", async () => {
    const missing = join(dir, "no-venv/bin/python");
    const result = await run(sshRun("ssh-missing-python", { python: missing, args: { per_device_train_batch_size: 4 } }));
    expect(result.code, result.stdout).toBe(1);
    expect(result.stderr).toContain(`${result.file}: invalid run config`);
    expect(result.stderr).toContain(`trainer.python: ${missing} cannot be run (ENOENT); set trainer.python to the interpreter that has trl installed on ssh node "loopback" (${userInfo().username}@127.0.0.1:${sshd.port})`);
    expect(result.runs).toBe(0);
    // The check's directory on the node is gone.
    expect(existsSync(join(workRoot, ".probes")) ? readdirSync(join(workRoot, ".probes")) : []).toEqual([]);
  });

  it.skipIf(unavailable !== null)("`evotrainer run` refuses a GRPOConfig key TRL does not take, by its field, and creates nothing; good keys create the run (real TRL in .venv-trl)", async () => {
    const typo = await run(sshRun("ssh-typo", { python: TRL_PYTHON, args: { per_device_train_batch_size: 4, gradient_acumulation_steps: 2 } }));
    expect(typo.code, typo.stdout).toBe(1);
    expect(typo.stderr).toContain(`${typo.file}: invalid run config (trainer arguments checked on ssh node "loopback"`);
    expect(typo.stderr).toContain("trainer.args.gradient_acumulation_steps: TRL's GRPOConfig has no argument gradient_acumulation_steps (did you mean gradient_accumulation_steps?)");
    expect(typo.stderr).not.toContain("per_device_train_batch_size");
    expect(typo.runs).toBe(0);

    const good = await run(sshRun("ssh-good", { python: TRL_PYTHON, args: { per_device_train_batch_size: 4, gradient_accumulation_steps: 2 } }));
    expect(good.code, good.stderr).toBe(0);
    expect(good.stderr).toContain('trainer arguments checked by trainer.python on ssh node "loopback"');
    expect(good.runs).toBe(1);
  });

  it.skipIf(unavailable !== null)("the API's run.create (dashboard, remote CLI) refuses the same key with its field, and creates nothing", async () => {
    const org = await db.organization.create({ data: { name: `${prefix}-api`, slug: `${prefix}-api` } });
    const user = await db.user.create({ data: { email: `${prefix}@example.test`, name: "approver", emailVerified: true } });
    await db.membership.create({ data: { userId: user.id, organizationId: org.id, role: "approver" } });
    const connection = createProducerConnection(redisUrl);
    const producer = new Producer(connection, prefix);
    const caller = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), sessionUserId: async () => user.id, producer: () => producer, trainerArgsWaits: trainerArgsWaits({ EVO_TRAINER_CHECK_PICKUP_S: 300 }) }));
    try {
      const refused = await caller.run.create({ config: sshRun("api-typo", { python: TRL_PYTHON, args: { num_generation: 4 } }), organizationId: org.id }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(TRPCError);
      expect((refused as TRPCError).code).toBe("BAD_REQUEST");
      expect((refused as TRPCError).message).toContain("trainer.args.num_generation: TRL's GRPOConfig has no argument num_generation (did you mean num_generations?)");
      expect(await db.run.count({ where: { name: "api-typo" } })).toBe(0);

      const created = await caller.run.create({ config: sshRun("api-good", { python: TRL_PYTHON, args: { per_device_train_batch_size: 4 } }), organizationId: org.id });
      expect(created.trainerArgs).toEqual({ verdict: "accepted", where: expect.stringContaining('ssh node "loopback"') });
      expect(await db.run.count({ where: { name: "api-good" } })).toBe(1);
    } finally {
      await producer.close();
      connection.disconnect();
    }
  });

  it("creates the run with a loud warning when no worker takes the check in time: its first job checks the arguments", async () => {
    // A queue prefix no worker listens on.
    const result = await run(sshRun("ssh-no-worker", { python: TRL_PYTHON, args: { per_device_train_batch_size: 4 } }), { EVO_QUEUE_PREFIX: `${prefix}-idle`, EVO_TRAINER_CHECK_PICKUP_S: "1" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("WARNING: the run's trainer arguments were not checked before it was created (no worker took the question within 1 s");
    expect(result.runs).toBe(1);
    await deleteKeys(redisUrl, `${prefix}-idle:*`);
  });
});
