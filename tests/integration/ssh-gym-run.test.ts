import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse, stringify } from "yaml";
import { appRouter, createCallerFactory, createContext } from "@evotrainer/api";
import { createDatabase, type RunReport } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";
import { startSshd, type Sshd } from "../support/sshd.ts";

// A database of its own: \`nodes sync\` disables the nodes its file does not list, installation-wide.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), "evo-ssh-run-"));
const jobsDir = join(dir, "control-plane");
const workRoot = join(dir, "node");
const masterKey = randomBytes(32).toString("base64");
const db = createDatabase(databaseUrl);

const cli = (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, ...extraEnv });

/** Distinct rollout uids in a job's rollout files on the node: what an exactly-once ingest must hold. */
function uidsOnNode(jobId: string): Set<string> {
  const uids = new Set<string>();
  for (const split of ["train", "eval"]) {
    const folder = join(workRoot, jobId, "output", "rollouts", split);
    const names = (() => {
      try {
        return readdirSync(folder);
      } catch {
        return [];
      }
    })();
    for (const name of names) {
      for (const line of readFileSync(join(folder, name), "utf8").split("\n")) {
        if (line.trim()) uids.add((JSON.parse(line) as { uid: string }).uid);
      }
    }
  }
  return uids;
}

/** The trainer under the job's setsid wrapper on the node (the wrapper's pid is in the job's pid file). */
function trainerPid(jobId: string): number | null {
  const wrapper = readFileSync(join(workRoot, jobId, "pid"), "utf8").trim();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (ppid === wrapper) return Number(entry);
    } catch {
      // the process ended while we looked
    }
  }
  return null;
}

describe("SSH executor end to end: a gym run on a GPU node reached over a real OpenSSH server on 127.0.0.1", () => {
  let sshd: Sshd;
  let keyFile: string;

  beforeAll(async () => {
    sshd = await startSshd();
    keyFile = join(dir, "node_key");
    writeFileSync(keyFile, sshd.privateKey, { mode: 0o600 });
    const compute = { nodes: [{ name: "loopback", host: "127.0.0.1", port: sshd.port, user: userInfo().username, key: { store: keyFile }, gpus: 2, labels: { gpu: "cpu-gym" }, workRoot }] };
    writeFileSync(join(dir, "compute.yaml"), stringify(compute));
    const synced = await cli(["nodes", "sync", join(dir, "compute.yaml")], { EVO_MASTER_KEY: masterKey });
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(/loopback .*0\/2 GPUs in use .*key: stored/);
  });

  afterAll(async () => {
    await sshd?.stop();
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("trains over SSH with rollouts arriving while it runs, survives a dropped connection and an OOM kill, ingests every rollout once, and never shows the key", async () => {
    const base = parse(readFileSync("examples/gym-swe.yaml", "utf8")) as Record<string, unknown>;
    const config = {
      ...base,
      name: "ssh-gym",
      executor: "ssh",
      resources: { gpusPerJob: 1, nodeLabels: { gpu: "cpu-gym" } },
      search: { proposals: 3, keep: 2, stepsPerBranch: 20, proposer: "rule" },
      budget: { gpuSeconds: 900, branches: 3, rounds: 1 },
    };
    writeFileSync(join(dir, "run.yaml"), stringify(config));

    const logs: string[] = [];
    process.env.EVO_MASTER_KEY = masterKey;
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "3000", EVO_PLACEMENT_EVERY_MS: "300", EVO_RETENTION: "manual" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), (line) => logs.push(line));
    try {
      const created = await cli(["run", join(dir, "run.yaml"), "--json"]);
      expect(created.code, created.stderr).toBe(0);
      const { runId } = JSON.parse(created.stdout) as { runId: string };

      // The base branch trains on the node; its rollouts reach Postgres while the job is still running.
      const baseJob = await until("the base branch's job running on the node", () =>
        db.job.findFirst({ where: { branch: { runId, version: 0 }, kind: "train", state: "running" }, include: { node: true } }),
      );
      expect(baseJob).toMatchObject({ executor: "ssh", node: { name: "loopback" }, gpuCount: 1, gpuIndexes: [0] });
      expect(baseJob.outputUri).toBe(join(workRoot, baseJob.id));
      await until("rollouts ingested while the job runs", async () => {
        const [rollouts, job] = await Promise.all([db.rollout.count({ where: { jobId: baseJob.id } }), db.job.findUniqueOrThrow({ where: { id: baseJob.id } })]);
        if (job.state !== "running") throw new Error(`the job ended (${job.state}) before any rollout was seen while it ran`);
        return rollouts > 0;
      });

      // Every SSH session is killed mid-job: the job runs on, the executor reconnects by itself.
      sshd.dropSessions();
      await until("the base branch trained", async () => (await db.job.findUniqueOrThrow({ where: { id: baseJob.id } })).state === "succeeded");

      // A child's trainer is SIGKILLed on the node (as the kernel's OOM killer or a person would): exit 137, a crash, retried.
      const child = await until("a child branch's job running", () =>
        db.job.findFirst({ where: { branch: { runId, version: { gt: 0 } }, kind: "train", state: "running", attempts: 1 } }),
      );
      const pid = await until("the child's trainer process", async () => trainerPid(child.id));
      process.kill(pid, "SIGKILL");
      const retry = await until("the retry event", () => db.event.findFirst({ where: { runId, type: "job_retry" } }));
      expect(retry.payload).toMatchObject({ jobId: child.id, failureClass: "crash", exitCode: 137 });

      const report = await until(
        "the run to complete",
        async () => {
          const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
          return run.status === "completed" || run.status === "failed" ? run : null;
        },
        180_000,
      );
      expect(report.status).toBe("completed");
      const retried = await db.job.findUniqueOrThrow({ where: { id: child.id } });
      expect(retried).toMatchObject({ state: "succeeded", attempts: 2, failureClass: "crash", exitCode: 0 });

      // Exactly once: the rows in Postgres are the distinct rollouts the node's files hold, job by job.
      const jobs = await db.job.findMany({ where: { branch: { runId }, state: "succeeded" } });
      expect(jobs.every((job) => job.executor === "ssh")).toBe(true);
      for (const job of jobs) {
        const stored = await db.rollout.count({ where: { jobId: job.id } });
        expect(stored, `job ${job.id} (${job.kind})`).toBe(uidsOnNode(job.id).size);
      }
      // The slots were given back.
      expect(await db.job.count({ where: { nodeId: { not: null }, state: { in: ["submitted", "running"] } } })).toBe(0);

      // Retention reaches the node: `evotrainer gc --yes` deletes, over SSH, the checkpoints of the
      // branches neither promoted nor best, and keeps the others and every job's rollouts.
      const ended = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { branches: { include: { jobs: { where: { kind: "train" } } } } } });
      const trained = ended.branches.filter((b) => b.jobs.length > 0);
      const checkpointsOf = (b: (typeof trained)[number]) => b.jobs.map((j) => join(workRoot, j.id, "output", "checkpoints"));
      const unkept = trained.filter((b) => b.id !== ended.bestBranchId && b.status !== "promoted");
      expect(unkept.length, "a control or rejected candidate whose weights go").toBeGreaterThan(0);
      for (const b of trained) for (const path of checkpointsOf(b)) expect(existsSync(path), path).toBe(true);
      const gc = await cli(["gc", runId, "--yes"], { EVO_MASTER_KEY: masterKey });
      expect(gc.code, gc.stderr).toBe(0);
      const removed = unkept.flatMap(checkpointsOf);
      for (const path of removed) expect(gc.stdout).toMatch(new RegExp(`\\] deleted .*  loopback:${path}`));
      for (const path of removed) expect(existsSync(path), `on the node: ${path}`).toBe(false);
      for (const b of trained.filter((x) => !unkept.includes(x))) for (const path of checkpointsOf(b)) expect(existsSync(path), `kept v${b.version}`).toBe(true);
      for (const job of jobs) expect(uidsOnNode(job.id).size, "rollouts stay").toBeGreaterThan(0);
      const retention = await db.event.findFirstOrThrow({ where: { runId, type: "retention_applied" } });
      const deleted = (retention.payload as { deleted: { path: string; where: string; bytes: number }[] }).deleted;
      expect(deleted.map((d) => d.path).sort()).toEqual([...removed].sort());
      expect(deleted.every((d) => d.where === "loopback" && d.bytes > 0)).toBe(true);
      // The report counts the deletions on the node as it counts local ones.
      const gcReport = JSON.parse((await cli(["report", runId, "--json"])).stdout) as { branches: { id: string; weightsDeleted: { bytes: number } | null }[] };
      for (const b of gcReport.branches.filter((x) => trained.some((t) => t.id === x.id))) expect(b.weightsDeleted !== null, `branch ${b.id}`).toBe(unkept.some((u) => u.id === b.id));

      // The key is nowhere: worker logs, events, job rows, the node row, the CLI report and the API's answers.
      const keyBody = sshd.privateKey.split("\n").filter((line) => line && !line.startsWith("-----")).join("");
      const needles = [sshd.privateKey.trim(), ...sshd.privateKey.split("\n").filter((line) => line.length > 20 && !line.startsWith("-----"))];
      const reportCli = await cli(["report", runId, "--json"]);
      const member = await db.user.create({ data: { email: `${prefix}@example.test`, name: "ssh test", emailVerified: true } });
      await db.membership.create({ data: { userId: member.id, organizationId: (await db.run.findUniqueOrThrow({ where: { id: runId } })).organizationId, role: "viewer" } });
      const apiProducer = new Producer(createProducerConnection(redisUrl), prefix);
      const caller = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), sessionUserId: async () => member.id, producer: () => apiProducer }));
      const branches = await db.branch.findMany({ where: { runId } });
      const answers = [
        await caller.node.list(),
        await caller.run.byId({ runId }),
        await caller.run.tree({ runId }),
        await caller.run.events({ runId, limit: 500 }),
        ...(await Promise.all(branches.map((b) => caller.branch.byId({ branchId: b.id })))),
      ];
      await apiProducer.close();
      // Bytes as latin1, so a key stored in clear in a Bytes column would be found too.
      const text = (value: unknown) =>
        JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? String(v) : v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v));
      const haystacks = {
        logs: logs.join("\n"),
        events: text(await db.event.findMany({ where: { runId } })),
        jobs: text(await db.job.findMany({ where: { branch: { runId } } })),
        node: text(await db.gpuNode.findMany()),
        report: reportCli.stdout + reportCli.stderr,
        gc: gc.stdout + gc.stderr,
        api: text(answers),
      };
      expect(keyBody.length).toBeGreaterThan(100);
      for (const [where, text] of Object.entries(haystacks)) {
        expect(text.length, where).toBeGreaterThan(0);
        for (const needle of needles) expect(text.includes(needle), `the private key appears in ${where}`).toBe(false);
      }
      expect(answers[0]).toEqual([expect.objectContaining({ name: "loopback", keySource: "stored", gpusInUse: [] })]);
    } finally {
      await worker.shutdown();
      delete process.env.EVO_MASTER_KEY;
    }
  }, 240_000);
});
