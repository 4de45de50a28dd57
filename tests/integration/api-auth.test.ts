import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter } from "@evotrainer/api";
import { importJob } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { apiHarness, httpStatusOf } from "../support/api-harness.ts";
import { ID_FIELDS, inputOf, leaksIn, madeUpIds, outcomeOf, procedures, type IdField } from "../support/procedure-sweep.ts";

// A database of its own: other files count rows of the shared one, and this one seeds several runs.
const redisUrl = inject("redisUrl");
const harness = await apiHarness(inject("databaseUrl"), redisUrl);
const { db, connection, producer } = harness;

type Credentials = { userId?: string; headers?: Record<string, string> };
const callerAs = (credentials: Credentials = {}) => harness.callerAs({ userId: credentials.userId, headers: new Headers(credentials.headers) });

/** Calls a procedure by its dotted path ("decision.veto"), the way a client would. */
function call(caller: ReturnType<typeof callerAs>, path: string, input?: unknown): Promise<unknown> {
  const fn = path.split(".").reduce<any>((node, key) => node[key], caller);
  return fn(input);
}


let seed: Awaited<ReturnType<typeof seedDashboard>>;

beforeAll(async () => {
  await connection.connect();
  seed = await seedDashboard(db, "api-auth");
});

afterAll(async () => {
  await harness.close();
});

describe("every tRPC procedure requires credentials", () => {
  // Enumerated from the router: a procedure added later is covered without editing this test.
  const paths = Object.keys(appRouter._def.procedures);

  it("finds the procedures", () => {
    expect(paths.length).toBeGreaterThan(15);
    expect(paths).toContain("decision.veto");
  });

  it.each(paths)("%s answers 401 without a session, API key or share token", async (path) => {
    expect(await httpStatusOf(call(callerAs(), path, {}))).toBe(401);
  });

  it("answers 401 for an unknown API key and an unknown share token", async () => {
    expect(await httpStatusOf(callerAs({ headers: { authorization: "Bearer evo_nope" } }).run.list())).toBe(401);
    expect(await httpStatusOf(callerAs({ headers: { "x-evo-share-token": "evs_nope" } }).run.byId({ runId: seed.run.id }))).toBe(401);
  });
});

describe("roles", () => {
  it("a viewer reads the run but gets 403 on approve, revise and veto", async () => {
    const viewer = callerAs({ userId: seed.users.viewer.id });
    expect((await viewer.run.byId({ runId: seed.run.id })).role).toBe("viewer");
    const branchId = seed.branches.v1.id;
    expect(await httpStatusOf(viewer.decision.approve({ branchId }))).toBe(403);
    expect(await httpStatusOf(viewer.decision.revise({ branchId, instructions: "try again" }))).toBe(403);
    expect(await httpStatusOf(viewer.decision.veto({ branchId, reason: "no" }))).toBe(403);
    expect(await httpStatusOf(viewer.shareLink.create({ runId: seed.run.id }))).toBe(403);
    expect(await db.decision.count({ where: { branchId } })).toBe(0);
    // Starting a run (the remote CLI's `run`) needs the approver role too, named organization or not.
    const runs = await db.run.count();
    const config = parse(readFileSync("examples/gym-math.yaml", "utf8")) as unknown;
    expect(await httpStatusOf(viewer.run.create({ config }))).toBe(403);
    expect(await httpStatusOf(viewer.run.create({ config, organizationId: seed.org.id }))).toBe(403);
    expect(await db.run.count()).toBe(runs);
  });

  it("a viewer gets 403 on overriding a veto, and only admins manage members", async () => {
    const branchId = seed.branches.v3.id;
    const organizationId = seed.org.id;
    expect(await httpStatusOf(callerAs({ userId: seed.users.viewer.id }).decision.overrideVeto({ branchId, reason: "worth it" }))).toBe(403);
    for (const role of ["viewer", "approver"] as const) {
      const caller = callerAs({ userId: seed.users[role].id });
      const userId = seed.users.viewer.id;
      expect(await httpStatusOf(caller.member.invite({ organizationId, email: "someone@example.test", role: "admin" }))).toBe(403);
      expect(await httpStatusOf(caller.member.changeRole({ organizationId, userId, role: "admin" }))).toBe(403);
      expect(await httpStatusOf(caller.member.remove({ organizationId, userId }))).toBe(403);
      expect(await httpStatusOf(caller.member.createPasswordReset({ organizationId, userId }))).toBe(403);
      expect(await httpStatusOf(caller.member.cancelInvitation({ organizationId, invitationId: "none" }))).toBe(403);
    }
    expect(await db.invitation.count({ where: { organizationId } })).toBe(0);
    expect((await db.membership.findFirstOrThrow({ where: { organizationId, userId: seed.users.viewer.id } })).role).toBe("viewer");
  });

  it("run control, job cancellation and notifications need their roles: 403 below them, nothing changed", async () => {
    const runId = seed.run.id;
    const job = await db.job.findFirstOrThrow({ where: { branch: { runId }, state: "running" } });
    for (const role of ["viewer"] as const) {
      const caller = callerAs({ userId: seed.users[role].id });
      expect(await httpStatusOf(caller.runControl.pause({ runId }))).toBe(403);
      expect(await httpStatusOf(caller.runControl.resume({ runId }))).toBe(403);
      expect(await httpStatusOf(caller.runControl.stop({ runId, sealed: false }))).toBe(403);
      expect(await httpStatusOf(caller.runControl.extendBudget({ runId, gpuSeconds: 99_999 }))).toBe(403);
      expect(await httpStatusOf(caller.runControl.cancelJob({ jobId: job.id }))).toBe(403);
    }
    for (const role of ["viewer", "approver"] as const) {
      const caller = callerAs({ userId: seed.users[role].id });
      expect(await httpStatusOf(caller.notification.createWebhook({ name: "x", kind: "generic", url: "http://127.0.0.1:9/hook" }))).toBe(403);
      expect(await httpStatusOf(caller.notification.deleteWebhook({ id: "none" }))).toBe(403);
      expect(await httpStatusOf(caller.notification.sendTest({ id: "none" }))).toBe(403);
    }
    expect(await db.event.count({ where: { runId, type: { in: ["run_paused", "run_resumed", "run_stop_requested", "budget_extended", "job_cancel_requested"] } } })).toBe(0);
    expect((await db.job.findUniqueOrThrow({ where: { id: job.id } })).cancelRequestedAt).toBeNull();
  });

  it("imports over HTTP need the approver role: 403 for a viewer on every step, nothing created", async () => {
    const viewer = callerAs({ userId: seed.users.viewer.id });
    const config = parse(readFileSync("examples/imported-swe.yaml", "utf8")) as unknown;
    const branches = await db.branch.count();
    expect(await httpStatusOf(viewer.import.begin({ format: "swe-agent", dir: "laptop:/trajs", into: { runId: seed.run.id } }))).toBe(403);
    expect(await httpStatusOf(viewer.import.begin({ dir: "laptop:/x.jsonl", into: { branchId: seed.branches.v1.id } }))).toBe(403);
    expect(await httpStatusOf(viewer.import.begin({ format: "swe-agent", dir: "laptop:/trajs", into: { config, organizationId: seed.org.id } }))).toBe(403);
    expect(await db.branch.count()).toBe(branches);
    const job = await importJob(db, { branchId: seed.branches.v1.id, externalId: "import:laptop:/x.jsonl", adapter: "gym", message: "test" });
    const next = { byteOffset: 1, lineNumber: 1, headHash: null };
    expect(await httpStatusOf(viewer.import.cursor({ jobId: job.id, source: "x.jsonl" }))).toBe(403);
    expect(await httpStatusOf(viewer.import.append({ jobId: job.id, source: "x.jsonl", from: { byteOffset: 0, lineNumber: 0 }, next, lines: [], unreadable: [] }))).toBe(403);
    expect(await httpStatusOf(viewer.import.metrics({ jobId: job.id, steps: [{ step: 1, data: { loss: 1 } }] }))).toBe(403);
    expect(await httpStatusOf(viewer.import.summary({ jobId: job.id, sources: ["x.jsonl"] }))).toBe(403);
    expect(await db.ingestCursor.count({ where: { jobId: job.id } })).toBe(0);
    expect(await db.metricPoint.count({ where: { branchId: seed.branches.v1.id, name: "trainer/loss" } })).toBe(0);
  });
});

describe("an admin of another organization", () => {
  // Two organizations seeded alike, sharing the catalog's detectors as live runs do: "theirs" is swept
  // for, "mine" is the caller's own, so every procedure has something of its own to answer with.
  let theirs: Awaited<ReturnType<typeof seedDashboard>>;
  let outsider: ReturnType<typeof callerAs>;
  let theirIds: Partial<Record<IdField, string | string[]>>;
  let theirRecordIds: string[];
  let secrets: { strings: string[]; ids: Set<string> };
  const config = parse(readFileSync("examples/gym-math.yaml", "utf8")) as unknown;
  const all = procedures();
  const takesId = (fields: string[]) => fields.some((f) => (ID_FIELDS as readonly string[]).includes(f));
  /** Each call a procedure gets: one, or one per record kind an `id` field may name. */
  const variants = (fields: string[]) => (fields.includes("id") ? theirRecordIds.map((id) => ({ ...theirIds, id })) : [theirIds]);
  const callAs = (caller: ReturnType<typeof callerAs>, path: string, fields: string[], ids: Partial<Record<IdField, string | string[]>>) => outcomeOf(() => call(caller, path, inputOf(path, fields, ids, { config })));

  /** Their approver reviews `n` more of their labels (on the catalog detectors both runs carry). */
  async function theirReviews(n: number) {
    const labels = await db.rolloutLabel.findMany({ where: { branchId: theirs.branches.v1.id, review: null }, take: n, orderBy: { id: "asc" } });
    for (const [i, label] of labels.entries()) await callerAs({ userId: theirs.users.approver.id }).rollout.reviewLabel({ labelId: String(label.id), review: i % 2 ? "rejected" : "confirmed" });
  }

  beforeAll(async () => {
    theirs = await seedDashboard(db, "sweep-theirs");
    const mine = await seedDashboard(db, "sweep-mine");
    outsider = callerAs({ userId: mine.users.admin.id });
    await theirReviews(3);
    const theirAdmin = callerAs({ userId: theirs.users.admin.id });
    const link = await theirAdmin.shareLink.create({ runId: theirs.run.id });
    const key = await theirAdmin.apiKey.create({ name: "their key" });
    const invitation = await theirAdmin.member.invite({ organizationId: theirs.org.id, email: "their.invitee@example.test", role: "viewer" });
    const rollout = await db.rollout.findFirstOrThrow({ where: { runId: theirs.run.id } });
    const label = await db.rolloutLabel.findFirstOrThrow({ where: { branchId: theirs.branches.v1.id } });
    const event = await db.event.findFirstOrThrow({ where: { runId: theirs.run.id } });
    const job = await db.job.findFirstOrThrow({ where: { branch: { runId: theirs.run.id } } });
    const harnessVersion = await db.harnessVersion.findFirstOrThrow({ where: { runId: theirs.run.id } });
    const { v1, v2 } = theirs.branches;
    theirIds = {
      runId: theirs.run.id, branchId: v1.id, branchIds: [v1.id, v2.id], otherBranchId: v2.id, rolloutId: String(rollout.id), labelId: String(label.id), eventId: String(event.id),
      jobId: job.id, harnessVersionId: harnessVersion.id, organizationId: theirs.org.id, userId: theirs.users.viewer.id, invitationId: invitation.invitationId,
    };
    theirRecordIds = [link.id, key.id];
    const runIds = { runId: theirs.run.id };
    const [branches, rollouts, labels, events, jobs, reviews] = await Promise.all([
      db.branch.findMany({ where: runIds, select: { id: true } }),
      db.rollout.findMany({ where: runIds, select: { id: true } }),
      db.rolloutLabel.findMany({ where: { branchId: { in: Object.values(theirs.branches).map((b) => b.id) } }, select: { id: true } }),
      db.event.findMany({ where: runIds, select: { id: true } }),
      db.job.findMany({ where: { branch: runIds }, select: { id: true } }),
      db.review.findMany({ where: runIds, select: { id: true } }),
    ]);
    expect(reviews.length).toBe(3);
    secrets = {
      strings: [theirs.org.id, theirs.org.name, theirs.org.slug, theirs.run.id, theirs.run.name, harnessVersion.id, link.id, key.id, invitation.invitationId, ...Object.values(theirs.users).flatMap((u) => [u.id, u.email]), ...branches.map((b) => b.id), ...jobs.map((j) => j.id)],
      ids: new Set([...rollouts, ...labels, ...events, ...reviews].map((r) => String(r.id))),
    };
  });

  it("is answered nothing of the first organization by any procedure: no id, name or email of its runs, branches, rollouts, labels or reviews", async () => {
    expect(all.length).toBeGreaterThan(60);
    const leaks: string[] = [];
    const unreached: string[] = [];
    for (const { path, fields } of all) {
      for (const ids of variants(fields)) {
        const outcome = await callAs(outsider, path, fields, ids);
        leaks.push(...leaksIn(outcome.ok ? outcome.value : outcome.message, secrets).map((l) => `${path}: ${l}`));
        // A schema's 400 would say nothing of access: each call must reach the procedure's own checks.
        if (!outcome.ok && outcome.code === "BAD_REQUEST") unreached.push(`${path}: ${outcome.message}`);
      }
    }
    expect(leaks).toEqual([]);
    expect(unreached).toEqual([]);
  });

  it("reads the same from every procedure after the first organization's people review more labels and share their run", async () => {
    const queries = all.filter((p) => p.type === "query");
    const snapshot = async () => Promise.all(queries.flatMap(({ path, fields }) => variants(fields).map(async (ids) => [path, await callAs(outsider, path, fields, ids)] as const)));
    const before = await snapshot();
    await theirReviews(6);
    await callerAs({ userId: theirs.users.approver.id }).shareLink.create({ runId: theirs.run.id });
    await db.labelStat.create({ data: { branchId: theirs.branches.v2.id, split: "train", step: 0, label: "truncated", detectorId: theirs.detectors.truncated.id, count: 7, total: 20 } });
    expect(await snapshot()).toEqual(before);
  });

  it("gets for another organization's id exactly the answer a made-up id gets, from every procedure taking an id", async () => {
    const differ: string[] = [];
    for (const { path, fields } of all.filter((p) => takesId(p.fields))) {
      for (const ids of variants(fields)) {
        const theirAnswer = await callAs(outsider, path, fields, ids);
        const madeUp = await callAs(outsider, path, fields, { ...ids, ...madeUpIds(fields) });
        if (JSON.stringify(theirAnswer) !== JSON.stringify(madeUp)) differ.push(`${path}: ${JSON.stringify(theirAnswer)} vs ${JSON.stringify(madeUp)}`);
      }
    }
    expect(differ).toEqual([]);
  });
});

describe("decisions", () => {
  it("a veto needs a reason", async () => {
    const approver = callerAs({ userId: seed.users.approver.id });
    expect(await httpStatusOf(approver.decision.veto({ branchId: seed.branches.v2.id, reason: "  " }))).toBe(400);
  });

  it("veto writes the Decision and its Event together and enqueues decide, which settles the branch in the worker", async () => {
    const approver = callerAs({ userId: seed.users.approver.id });
    const branchId = seed.branches.v2.id;
    const result = await approver.decision.veto({ branchId, reason: "score regressed vs parent" });
    expect(result).toMatchObject({ status: "awaiting_decision", enqueued: true });
    const decision = await db.decision.findUniqueOrThrow({ where: { id: result.decisionId } });
    expect(decision).toMatchObject({ kind: "veto", stage: "completion", actorType: "human", userId: seed.users.approver.id, reason: "score regressed vs parent" });
    const events = await db.event.findMany({ where: { branchId, type: "decision" } });
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ decisionId: decision.id, kind: "veto", from: "awaiting_decision" });
    const jobs = await producer.queue(QueueName.Decide).getWaiting();
    expect(jobs.map((j) => j.data)).toContainEqual({ runId: seed.run.id, branchId });
    // Decided once: a second decision on the same branch is refused.
    expect(await httpStatusOf(approver.decision.approve({ branchId }))).toBe(409);
  });

  it("approve records the decision for the worker, which owns promotion and the best-so-far", async () => {
    const admin = callerAs({ userId: seed.users.admin.id });
    const branchId = seed.branches.v1.id;
    const result = await admin.decision.approve({ branchId, reason: "clean win" });
    expect(result.status).toBe("awaiting_decision");
    expect(await db.event.count({ where: { branchId, type: "decision" } })).toBe(1);
    expect(await db.decision.count({ where: { branchId, kind: "approve" } })).toBe(1);
  });

  it("the inbox lists branches awaiting a decision with whether the caller may decide", async () => {
    const other = await seedDashboard(db, "inbox");
    const inbox = await callerAs({ userId: other.users.viewer.id }).decision.inbox();
    expect(inbox.map((b) => b.id).sort()).toEqual([other.branches.v1.id, other.branches.v2.id].sort());
    expect(inbox.every((b) => !b.canDecide)).toBe(true);
  });
});

describe("share links", () => {
  it("a share token reads its run, branches and rollouts and nothing else", async () => {
    const approver = callerAs({ userId: seed.users.approver.id });
    const link = await approver.shareLink.create({ runId: seed.run.id });
    expect(link.token).toMatch(/^evs_[A-Za-z0-9_-]{43}$/);
    const stored = await db.shareLink.findUniqueOrThrow({ where: { id: link.id } });
    expect(stored.tokenHash).not.toContain(link.token.slice(4));
    const shared = callerAs({ headers: { "x-evo-share-token": link.token } });
    expect(await shared.shareLink.current()).toEqual({ runId: seed.run.id });
    expect((await shared.run.byId({ runId: seed.run.id })).role).toBeNull();
    expect((await shared.run.tree({ runId: seed.run.id })).branches).toHaveLength(5);
    expect((await shared.branch.byId({ branchId: seed.branches.v1.id })).version).toBe(1);
    const page = await shared.rollout.list({ branchId: seed.branches.v1.id, label: "repetition_loop", limit: 100 });
    expect(page.items.length).toBeGreaterThan(0);
    expect(await httpStatusOf(shared.decision.approve({ branchId: seed.branches.v4.id }))).toBe(403);
    expect(await httpStatusOf(shared.run.list())).toBe(403);
    expect(await httpStatusOf(shared.shareLink.create({ runId: seed.run.id }))).toBe(403);

    const other = await seedDashboard(db, "elsewhere");
    expect(await httpStatusOf(shared.run.byId({ runId: other.run.id }))).toBe(404);
    expect(await httpStatusOf(shared.branch.byId({ branchId: other.branches.v1.id }))).toBe(404);
  });

  it("a share token sees an imported branch's rollouts, never the paths they were imported from", async () => {
    const approver = callerAs({ userId: seed.users.approver.id });
    const dir = "/home/alice/runs/secret-project/verl-dump";
    const branchId = seed.branches.v2.id;
    await db.job.create({ data: { branchId, kind: "train", executor: "local", adapter: "verl", state: "succeeded", externalId: `import:verl:${dir}`, message: `imported from ${dir}` } });
    await db.event.create({ data: { runId: seed.run.id, branchId, type: "awaiting_decision", actor: "cli", payload: { reason: "imported", imported: { adapter: "verl", dir } } } });
    const link = await approver.shareLink.create({ runId: seed.run.id });
    const shared = callerAs({ headers: { "x-evo-share-token": link.token } });

    const sharedBranch = await shared.branch.byId({ branchId });
    expect(sharedBranch.jobs.filter((j) => j.imported)).toHaveLength(1);
    expect(JSON.stringify(sharedBranch)).not.toContain(dir);
    const payloads = async (caller: typeof shared) => JSON.stringify((await caller.run.events({ runId: seed.run.id })).map((e) => e.payload));
    expect(await payloads(shared)).not.toContain(dir);
    // The team itself still sees where its files came from.
    expect((await approver.branch.byId({ branchId })).jobs.find((j) => j.imported)?.message).toBe(`imported from ${dir}`);
    expect(await payloads(approver)).toContain(dir);
  });

  it("a revoked or expired token no longer opens anything", async () => {
    const approver = callerAs({ userId: seed.users.approver.id });
    const link = await approver.shareLink.create({ runId: seed.run.id, expiresInHours: 1 });
    const shared = callerAs({ headers: { "x-evo-share-token": link.token } });
    expect((await shared.run.byId({ runId: seed.run.id })).id).toBe(seed.run.id);
    await approver.shareLink.revoke({ id: link.id });
    // A context is one request: the next request resolves the token again.
    const afterRevoke = callerAs({ headers: { "x-evo-share-token": link.token } });
    expect(await httpStatusOf(afterRevoke.run.byId({ runId: seed.run.id }))).toBe(401);

    const expiring = await approver.shareLink.create({ runId: seed.run.id, expiresInHours: 1 });
    await db.shareLink.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    expect(await httpStatusOf(callerAs({ headers: { "x-evo-share-token": expiring.token } }).run.tree({ runId: seed.run.id }))).toBe(401);
  });
});

describe("compare", () => {
  it("puts branches of one run side by side: recipe, label rates and the same tasks' newest rollouts", async () => {
    const viewer = callerAs({ userId: seed.users.viewer.id });
    const { v1, v2 } = seed.branches;
    const compared = await viewer.compare.branches({ runId: seed.run.id, branchIds: [v2.id, v1.id] });
    expect(compared.branches.map((b) => b.version)).toEqual([1, 2]);
    expect(compared.branches.map((b) => JSON.parse(b.recipe).algo.temperature)).toEqual([1, 0.8]);
    expect(compared.labelRates.filter((l) => l.branchId === v1.id).map((l) => l.label).sort()).toEqual(["repetition_loop", "truncated"]);
    // Neither is scored on the promotion split in this seed: the same tasks come from training.
    expect(compared.split).toBe("train");
    expect(compared.tasks).toHaveLength(6);
    for (const t of compared.tasks) {
      for (const branch of [v1, v2]) {
        const newest = await db.rollout.findFirstOrThrow({ where: { branchId: branch.id, taskId: t.taskId, split: "train" }, orderBy: [{ step: "desc" }, { sample: "asc" }] });
        expect(t.byBranch[branch.id]).toMatchObject({ id: String(newest.id), taskId: t.taskId, response: newest.response, reward: newest.reward });
      }
    }

    const other = await seedDashboard(db, "compare-elsewhere");
    expect(await httpStatusOf(viewer.compare.branches({ runId: seed.run.id, branchIds: [v1.id, other.branches.v1.id] }))).toBe(404);
    const link = await callerAs({ userId: other.users.approver.id }).shareLink.create({ runId: other.run.id });
    const shared = callerAs({ headers: { "x-evo-share-token": link.token } });
    expect(await httpStatusOf(shared.compare.branches({ runId: seed.run.id, branchIds: [v1.id, v2.id] }))).toBe(404);
  });
});

describe("input bounds", () => {
  it("ids past the int64 range and steps past int32 are a 400 at the boundary, not a database error", async () => {
    const viewer = callerAs({ userId: seed.users.viewer.id });
    const huge = "9223372036854775808";
    expect(await httpStatusOf(viewer.rollout.list({ branchId: seed.branches.v1.id, cursor: huge }))).toBe(400);
    expect(await httpStatusOf(viewer.rollout.byId({ rolloutId: huge }))).toBe(400);
    expect(await httpStatusOf(viewer.rollout.compare({ rolloutId: huge, otherBranchId: seed.branches.v2.id }))).toBe(400);
    expect(await httpStatusOf(viewer.rollout.reviewLabel({ labelId: huge, review: "confirmed" }))).toBe(400);
    expect(await httpStatusOf(viewer.run.llmCall({ runId: seed.run.id, eventId: huge }))).toBe(400);
    expect(await httpStatusOf(viewer.rollout.list({ branchId: seed.branches.v1.id, step: 2 ** 31 }))).toBe(400);
    expect(await httpStatusOf(viewer.rollout.byId({ rolloutId: "9223372036854775807" }))).toBe(404);
  });
});

describe("the sealed split through a share link", () => {
  it("stays unseen until the run's sealed evaluation is released, then shows only its scores", async () => {
    const run = await seedDashboard(db, "sealed");
    const branchId = run.branches.v1.id;
    await db.rollout.createMany({
      data: [0, 1].map((i) => ({ runId: run.run.id, branchId, split: "sealed" as const, step: 30, taskId: `hidden-${i}`, groupId: `h-${i}`, sample: 0, reward: i, responseTokens: 9, response: "hidden answer", uid: `sealed-${i}` })),
    });
    await db.metricPoint.create({ data: { branchId, step: 30, name: "sealed/score", value: 0.7 } });
    await db.job.create({ data: { branchId, kind: "eval", executor: "local", adapter: "gym", state: "succeeded", attempts: 1, logTail: "task hidden-0: hidden answer" } });
    const link = await callerAs({ userId: run.users.approver.id }).shareLink.create({ runId: run.run.id });
    const shared = callerAs({ headers: { "x-evo-share-token": link.token } });
    const sealedId = String((await db.rollout.findFirstOrThrow({ where: { branchId, split: "sealed" } })).id);

    expect(await httpStatusOf(shared.rollout.list({ branchId, split: "sealed" }))).toBe(403);
    expect((await shared.rollout.list({ branchId, limit: 200 })).items.some((r) => r.split === "sealed")).toBe(false);
    expect(await httpStatusOf(shared.rollout.byId({ rolloutId: sealedId }))).toBe(403);
    expect((await shared.run.metrics({ runId: run.run.id, branchIds: [branchId] })).points.some((p) => p.name.startsWith("sealed/"))).toBe(false);
    expect((await shared.branch.byId({ branchId })).jobs.find((j) => j.kind === "eval")?.logTail).toBeNull();
    // People of the organization see everything.
    expect((await callerAs({ userId: run.users.viewer.id }).rollout.list({ branchId, split: "sealed" })).items[0]!.taskId).toBe("hidden-0");

    await db.run.update({ where: { id: run.run.id }, data: { finalReport: { sealed: { branchId, score: 0.5, tasks: 2 } } } });
    const released = await shared.rollout.list({ branchId, split: "sealed" });
    expect(released.items.map((r) => [r.reward, r.taskId, r.labels])).toEqual([[0, null, []], [1, null, []]]);
    expect((await shared.rollout.list({ branchId, split: "sealed", q: "hidden" })).items).toHaveLength(0);
    expect(await httpStatusOf(shared.rollout.byId({ rolloutId: sealedId }))).toBe(403);
    expect((await shared.run.metrics({ runId: run.run.id, branchIds: [branchId] })).points.some((p) => p.name === "sealed/score")).toBe(true);
  });
});

describe("API keys", () => {
  it("a key acts as its creator until it is revoked; only its hash is stored", async () => {
    const admin = callerAs({ userId: seed.users.admin.id });
    const created = await admin.apiKey.create({ name: "cli" });
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).keyHash).not.toBe(created.key);
    const cli = callerAs({ headers: { authorization: `Bearer ${created.key}` } });
    expect((await cli.viewer.me()).id).toBe(seed.users.admin.id);
    expect((await cli.run.list()).map((r) => r.id)).toContain(seed.run.id);
    await admin.apiKey.revoke({ id: created.id });
    expect(await httpStatusOf(callerAs({ headers: { authorization: `Bearer ${created.key}` } }).run.list())).toBe(401);
  });
});

describe("rollouts", () => {
  it("pages by keyset and filters by label, step and reward range", async () => {
    const viewer = callerAs({ userId: seed.users.viewer.id });
    const branchId = seed.branches.v1.id;
    const first = await viewer.rollout.list({ branchId, limit: 25 });
    const second = await viewer.rollout.list({ branchId, limit: 25, cursor: first.nextCursor! });
    const third = await viewer.rollout.list({ branchId, limit: 25, cursor: second.nextCursor! });
    expect([first.items.length, second.items.length, third.items.length, third.nextCursor]).toEqual([25, 25, 10, null]);
    const truncated = await viewer.rollout.list({ branchId, label: "truncated", step: 0 });
    expect(truncated.items.every((r) => r.truncated && r.step === 0)).toBe(true);
    const zero = await viewer.rollout.list({ branchId, rewardMax: 0 });
    expect(zero.items.every((r) => r.reward !== null && r.reward <= 0)).toBe(true);
    const counts = await viewer.rollout.labelCounts({ branchId });
    expect(counts.find((c) => c.label === "truncated")?.count).toBe(12);
  });

  it("a viewer cannot review a label; an approver can", async () => {
    const label = await db.rolloutLabel.findFirstOrThrow({ where: { branchId: seed.branches.v1.id } });
    expect(await httpStatusOf(callerAs({ userId: seed.users.viewer.id }).rollout.reviewLabel({ labelId: String(label.id), review: "confirmed" }))).toBe(403);
    const reviewed = await callerAs({ userId: seed.users.approver.id }).rollout.reviewLabel({ labelId: String(label.id), review: "rejected" });
    expect(reviewed.review).toBe("rejected");
  });
});
