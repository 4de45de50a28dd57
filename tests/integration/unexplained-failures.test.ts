import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createContext, createLocalUser } from "@evotrainer/api";
import { createDatabase, loadHarnessVersion } from "@evotrainer/db";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { runCli } from "../support/cli.ts";
import { testPrefix } from "../support/redis-prefix.ts";

// A branch seeded with real SWE-bench agent trajectories (the shared mini-swe-agent fixture) through
// the real CLI import, labelled by the real swe catalog at ingest.
const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const connection = createProducerConnection(inject("redisUrl"));
const producer = new Producer(connection, testPrefix());
const dir = mkdtempSync(join(tmpdir(), "evo-unexplained-"));
const createCaller = createCallerFactory(appRouter);
const callerAs = (userId: string) => createCaller(createContext({ db, headers: new Headers(), sessionUserId: async () => userId, producer: () => producer }));

describe("unexplained failures of a branch", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await producer.close();
    connection.disconnect();
    await db.$disconnect();
  });

  it("clusters the failed, unlabelled rollouts; an approver drafts, backtests and registers a detector from a cluster", async () => {
    const lines = gunzipSync(readFileSync("tests/fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz")).toString("utf8").trim().split("\n");
    const file = join(dir, `swe-${process.pid}.jsonl`);
    writeFileSync(file, `${lines.slice(0, 60).join("\n")}\n`);
    const imported = await runCli(["import", "mini-swe-agent", file, "--json"], { DATABASE_URL: databaseUrl });
    expect(imported.code, imported.stderr).toBe(0);
    const { runId, branchId } = JSON.parse(imported.stdout) as { runId: string; branchId: string };
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    const viewer = await createLocalUser(db, { email: `unexplained-viewer-${process.pid}@example.test`, name: "Viewer", password: "a long enough password 1", organizationId: run.organizationId, role: "viewer" });
    const approver = await createLocalUser(db, { email: `unexplained-approver-${process.pid}@example.test`, name: "Approver", password: "a long enough password 1", organizationId: run.organizationId, role: "approver" });

    const found = await callerAs(viewer.id).unexplained.clusters({ branchId });
    // Independently of the clustering: failed = unresolved (reward 0) or voided by a validity label;
    // unexplained = failed with no label at all (the swe catalog has no outcome label).
    const rows = await db.rollout.findMany({ where: { branchId }, select: { id: true, uid: true, reward: true, labels: { select: { detectorId: true } } } });
    const validity = new Set((await db.detector.findMany({ where: { validity: true }, select: { id: true } })).map((d) => d.id));
    const failed = rows.filter((r) => (r.reward !== null && r.reward < 0.5) || r.labels.some((l) => validity.has(l.detectorId)));
    const unlabelled = failed.filter((r) => r.labels.length === 0);
    expect(found).toMatchObject({ rollouts: 60, failures: failed.length, unexplained: unlabelled.length, harnessVersion: 1 });
    expect(unlabelled.length).toBeGreaterThan(0);
    expect(found.clusters.reduce((n, c) => n + c.count, 0)).toBe(unlabelled.length);
    const byUid = new Map(unlabelled.map((r) => [r.uid, r.id.toString()]));
    for (const c of found.clusters) {
      expect(c.shareOfFailures).toBeCloseTo(c.count / failed.length, 12);
      // Each example is one of the cluster's unlabelled failures, with the id its rollout page opens by.
      for (const e of c.examples) expect(e.rolloutId).toBe(byUid.get(e.uid));
    }
    const counts = found.clusters.map((c) => c.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    // A viewer reads clusters but does not draft; an approver does.
    const cluster = found.clusters.find((c) => c.signature.exception !== null) ?? found.clusters[0]!;
    await expect(callerAs(viewer.id).unexplained.draft({ branchId, clusterKey: cluster.key })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const api = callerAs(approver.id);
    const draft = await api.unexplained.draft({ branchId, clusterKey: cluster.key });
    const detector = { label: draft.label, description: draft.description, when: draft.when, ...(draft.evidence ? { evidence: draft.evidence } : {}) };

    // An edited rule that does not compile is refused with a sentence naming the rule.
    await expect(api.unexplained.backtest({ branchId, clusterKey: cluster.key, detector: { ...detector, when: "tool_results.exists(r, r.content.matches(r'('))" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/^The rule was refused: /),
    });
    await expect(api.unexplained.backtest({ branchId, clusterKey: cluster.key, detector: { ...detector, label: "Not A Label" } })).rejects.toMatchObject({ code: "BAD_REQUEST" });

    const { backtest, harnessVersionId } = await api.unexplained.backtest({ branchId, clusterKey: cluster.key, detector });
    expect(backtest.cluster).toEqual({ size: cluster.count, flagged: cluster.count });
    expect(backtest.rollouts).toBe(60);
    expect(backtest.flagged).toBeGreaterThanOrEqual(cluster.count);
    expect(backtest.flaggedFailed + backtest.flaggedSucceeded).toBe(backtest.flagged);
    expect(backtest.precision).toBeNull();
    expect(backtest.caseFailures).toEqual([]);
    expect(harnessVersionId).toBe(run.harnessVersionId);

    // Reviews of the new label (a person's "missed", and a "does not hold") give the draft its precision.
    const [first, second] = cluster.examples;
    await api.labelReview.submit({ rolloutId: first!.rolloutId!, label: draft.label, holds: true });
    if (second) await api.labelReview.submit({ rolloutId: second.rolloutId!, label: draft.label, holds: false });
    const reviewed = await api.unexplained.backtest({ branchId, clusterKey: cluster.key, detector });
    expect(reviewed.backtest.precision).toMatchObject({ reviewed: second ? 2 : 1, confirmed: 1 });

    const registered = await api.unexplained.register({ branchId, clusterKey: cluster.key, detector, harnessVersionId });
    expect(registered).toMatchObject({ version: 2, label: draft.label });
    const after = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(after.harnessVersionId).toBe(registered.harnessVersionId);
    const stored = await loadHarnessVersion(db, registered.harnessVersionId);
    const added = stored.definition.detectors.find((d) => d.label === draft.label)!;
    expect(added).toMatchObject({ when: draft.when, validity: false });
    expect(stored.definition.detectors).toHaveLength((await loadHarnessVersion(db, harnessVersionId)).definition.detectors.length + 1);
    const version = await db.harnessVersion.findUniqueOrThrow({ where: { id: registered.harnessVersionId } });
    expect(version.parentId).toBe(harnessVersionId);
    expect(version.evidence).toMatchObject({ proposedBy: "person", drafted: { clusterKey: cluster.key, backtest: { flagged: backtest.flagged } } });
    const event = await db.event.findFirstOrThrow({ where: { runId, type: "harness_version" }, orderBy: { id: "desc" } });
    expect(event.actor).toBe(`user:${approver.id}`);

    // The new version's detector explains its cluster now, labelled in place of an ingest that never ran it.
    const now = await callerAs(viewer.id).unexplained.clusters({ branchId });
    expect(now).toMatchObject({ harnessVersion: 2, labelledNow: [added.id] });
    // Its cluster is explained, and at most the failures it flags: some of those carried another label already.
    expect(now.unexplained).toBeLessThanOrEqual(unlabelled.length - cluster.count);
    expect(now.unexplained).toBeGreaterThanOrEqual(unlabelled.length - backtest.flaggedFailed);
    expect(now.clusters.map((c) => c.key)).not.toContain(cluster.key);

    // The backtest ran on version 1; registering it again after the harness moved is refused.
    await expect(api.unexplained.register({ branchId, clusterKey: cluster.key, detector, harnessVersionId })).rejects.toMatchObject({ code: "CONFLICT" });
  }, 180_000);
});
