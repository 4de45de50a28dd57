import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse, stringify } from "yaml";
import { ACTIVE_JOB_STATES, isSettledRun } from "@evotrainer/core";
import { ensureLocalAdmin } from "@evotrainer/api";
import { createDatabase, LOCAL_ADMIN_EMAIL } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";

// A local install on which `npm run quickstart` never ran: a migrated, empty database, the worker,
// and the built CLI with no EVO_API_KEY (nor any CLI login: its config directory is the test's own).
// A database of its own, as every file that starts a worker has.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), "evo-local-control-"));
const jobsDir = join(dir, "jobs");
const db = createDatabase(databaseUrl);

const cli = async (args: string[]) => {
  const result = await runCli(args, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, XDG_CONFIG_HOME: dir });
  expect(result.code, `evotrainer ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result;
};

describe("local control without a dashboard: the CLI creates the local admin when it first needs one", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("run → (pause ∥ users list, racing on a fresh database) → resume → decide → users list → stop, every event with the local admin as actor", async () => {
    const base = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>;
    const configFile = join(dir, "gated.yaml");
    writeFileSync(
      configFile,
      stringify({
        ...base,
        name: "local-control",
        autonomy: { mode: "human_gated" },
        search: { proposals: 2, keep: 1, stepsPerBranch: 12, proposer: "rule", control: "none" },
        budget: { gpuSeconds: 900, branches: 3, rounds: 3 },
      }),
    );
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "2000" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
    try {
      expect(await db.user.count()).toBe(0);
      const { runId } = JSON.parse((await cli(["run", configFile, "--json"])).stdout) as { runId: string };

      // Two CLI processes that both need the admin, at once: one creates it, the other adopts it.
      const [paused, listed] = await Promise.all([cli(["pause", runId]), cli(["users", "list", "--json"])]);
      expect(paused.stdout).toContain("paused");
      const admins = await db.user.findMany({ where: { email: LOCAL_ADMIN_EMAIL }, include: { accounts: true, memberships: { include: { organization: true } } } });
      expect(admins).toHaveLength(1);
      const admin = admins[0]!;
      expect(admin.accounts).toHaveLength(1);
      expect(admin.memberships.map((m) => [m.organization.slug, m.role])).toEqual([["local", "admin"]]);
      expect((JSON.parse(listed.stdout) as { members: { email: string; role: string }[] }).members).toEqual([expect.objectContaining({ email: LOCAL_ADMIN_EMAIL, role: "admin" })]);
      // Its password is shown once, by whichever process created it, and never again.
      const shown = [paused.stderr, listed.stderr].filter((text) => text.includes(`created the local admin ${LOCAL_ADMIN_EMAIL} with password`));
      expect(shown).toHaveLength(1);

      await cli(["resume", runId]);
      const waiting = await until("a branch awaiting a decision", () => db.branch.findFirst({ where: { runId, status: "awaiting_decision" } }));
      await cli(["decide", waiting.id, "veto", "--note", "vetoed from the CLI of an install without a dashboard"]);
      await until("the veto settled", async () => (await db.branch.findUniqueOrThrow({ where: { id: waiting.id } })).status === "vetoed");
      const again = await cli(["users", "list"]);
      expect(again.stdout).toContain(LOCAL_ADMIN_EMAIL);
      expect(again.stderr).not.toContain("password");
      await cli(["stop", runId, "--skip-sealed"]);
      await until("the run settled with no job left running", async () => {
        if (!isSettledRun((await db.run.findUniqueOrThrow({ where: { id: runId } })).status)) return false;
        return (await db.job.count({ where: { branch: { runId }, state: { in: [...ACTIVE_JOB_STATES] } } })) === 0;
      });

      const actor = `user:${admin.id}`;
      const events = await db.event.findMany({ where: { runId, type: { in: ["run_paused", "run_resumed", "run_stop_requested"] } }, orderBy: { id: "asc" } });
      expect(events.map((e) => [e.type, e.actor])).toEqual([
        ["run_paused", actor],
        ["run_resumed", actor],
        ["run_stop_requested", actor],
      ]);
      const decision = await db.decision.findFirstOrThrow({ where: { branchId: waiting.id } });
      expect(decision).toMatchObject({ kind: "veto", actorType: "human", userId: admin.id });
      expect(await db.user.count()).toBe(1);
    } finally {
      await worker.shutdown();
    }
  }, 300_000);
});

describe("ensureLocalAdmin under concurrency", () => {
  it("four processes' clients racing on a fresh database create one admin, one login and one membership, and agree on it", async () => {
    const fresh = await createTestDatabase(inject("databaseUrl"));
    // One client per racer, as separate CLI processes would have: each its own connection and transaction.
    const clients = Array.from({ length: 4 }, () => createDatabase(fresh.url));
    try {
      const logins = await Promise.all(clients.map((client) => ensureLocalAdmin(client)));
      expect(new Set(logins.map((l) => l.userId)).size).toBe(1);
      expect(new Set(logins.map((l) => l.organizationId)).size).toBe(1);
      expect(logins.filter((l) => l.password !== null)).toHaveLength(1);
      const check = clients[0]!;
      expect(await check.user.count()).toBe(1);
      expect(await check.account.count()).toBe(1);
      expect(await check.membership.count()).toBe(1);
      expect(await check.organization.count()).toBe(1);
    } finally {
      await Promise.all(clients.map((client) => client.$disconnect()));
      await fresh.drop();
    }
    // A fresh migrated database and four scrypt hashes: slow on a busy two-core machine.
  }, 180_000);
});
