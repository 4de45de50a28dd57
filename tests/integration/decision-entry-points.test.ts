import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { recordDecision } from "@evotrainer/db";
import { apiHarness } from "../support/api-harness.ts";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { CLI } from "../support/cli.ts";

// A database of its own: the seeded runs' branches are decided here, and other files count rows.
const redisUrl = inject("redisUrl");
const harness = await apiHarness(inject("databaseUrl"), redisUrl);
const { database, db, prefix, connection, producer } = harness;

let seed: Awaited<ReturnType<typeof seedDashboard>>;
let apiKey: string;

const api = (userId: string) => harness.callerAs({ userId });

/** The real CLI, as the owner of `apiKey`. */
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_API_KEY: apiKey },
    encoding: "utf8",
  });

/** What a decision leaves behind, without what differs by nature (ids, times, the branch). */
async function stored(branchId: string) {
  const decisions = await db.decision.findMany({ where: { branchId }, select: { stage: true, kind: true, actorType: true, userId: true, reason: true, instructions: true } });
  const events = await db.event.findMany({ where: { branchId, type: "decision" }, select: { type: true, actor: true, payload: true } });
  return { decisions, events: events.map((e) => ({ ...e, payload: { ...(e.payload as object), decisionId: "…" } })) };
}

beforeAll(async () => {
  await connection.connect();
  seed = await seedDashboard(db, "decision-entry");
  apiKey = (await api(seed.users.approver.id).apiKey.create({ name: "cli" })).key;
});

afterAll(async () => {
  await harness.close();
});

describe("decisions are recorded by one writer, whoever decides", () => {
  it("stores a CLI veto and an API veto identically, the person who decided included", async () => {
    const reason = "score regressed vs parent";
    await api(seed.users.approver.id).decision.veto({ branchId: seed.branches.v1.id, reason });
    const viaCli = cli("decide", seed.branches.v2.id, "veto", "--note", reason);
    expect(viaCli.status, viaCli.stderr).toBe(0);
    const fromApi = await stored(seed.branches.v1.id);
    expect(fromApi.decisions).toEqual([{ stage: "completion", kind: "veto", actorType: "human", userId: seed.users.approver.id, reason, instructions: null }]);
    expect(fromApi.events).toEqual([
      { type: "decision", actor: `user:${seed.users.approver.id}`, payload: { decisionId: "…", kind: "veto", stage: "completion", from: "awaiting_decision", to: "awaiting_decision", reason, instructions: null } },
    ]);
    expect(await stored(seed.branches.v2.id)).toEqual(fromApi);
  });

  it("refuses a second decision on a decided branch from the API, the CLI and the policy", async () => {
    const branchId = seed.branches.v1.id;
    await expect(api(seed.users.admin.id).decision.approve({ branchId })).rejects.toMatchObject({ code: "CONFLICT" });
    const again = cli("decide", branchId, "approve");
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/approve refused: the branch was already decided at completion/);
    expect(await db.$transaction((tx) => recordDecision(tx, { branchId, kind: "approve", reason: "all gate checks passed", actor: { kind: "policy" } }))).toMatchObject({
      outcome: "refused",
    });

    // Settled (as the worker's decide step leaves it): nobody may decide it again either.
    await db.branch.update({ where: { id: branchId }, data: { status: "vetoed" } });
    await expect(api(seed.users.admin.id).decision.veto({ branchId, reason: "again" })).rejects.toMatchObject({ code: "PRECONDITION_FAILED" });
    expect(cli("decide", branchId, "veto", "--note", "again").stderr).toMatch(/veto refused: a vetoed branch is not waiting for a decision/);
    expect((await stored(branchId)).decisions).toHaveLength(1);
  });

  it("holds a viewer's CLI decision to the viewer's role", async () => {
    const viewerKey = (await api(seed.users.viewer.id).apiKey.create({ name: "viewer-cli" })).key;
    const refused = spawnSync(process.execPath, [CLI, "decide", seed.branches.v2.id, "approve"], {
      env: { ...process.env, DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_API_KEY: viewerKey },
      encoding: "utf8",
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/needs the approver role/);
  });
});
