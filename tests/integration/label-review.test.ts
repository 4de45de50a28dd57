import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLocalUser, LOCAL_ADMIN_EMAIL } from "@evotrainer/api";
import { apiHarness, httpStatusOf } from "../support/api-harness.ts";
import { seedDashboard, SEED_PASSWORD } from "../support/dashboard-seed.ts";
import { CLI } from "../support/cli.ts";

// A database of its own: the CLI acts as this database's local admin.
const redisUrl = inject("redisUrl");
const harness = await apiHarness(inject("databaseUrl"), redisUrl);
const { db } = harness;
const dir = mkdtempSync(join(tmpdir(), "evo-label-review-"));
// Without EVO_SERVER and EVO_API_KEY, and with a config folder of its own (no saved login), the CLI acts locally as the local admin.
const { EVO_SERVER: _server, EVO_API_KEY: _key, ...inherited } = process.env;
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], {
    env: { ...inherited, DATABASE_URL: harness.database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: harness.prefix, XDG_CONFIG_HOME: dir },
    encoding: "utf8",
  });


let a: Awaited<ReturnType<typeof seedDashboard>>;
let b: Awaited<ReturnType<typeof seedDashboard>>;

beforeAll(async () => {
  a = await seedDashboard(db, "label-review-a");
  b = await seedDashboard(db, "label-review-b");
  const admin = await createLocalUser(db, { email: LOCAL_ADMIN_EMAIL, name: "Local admin", password: SEED_PASSWORD, organizationId: a.org.id, role: "admin" });
  await db.membership.create({ data: { organizationId: b.org.id, userId: admin.id, role: "admin" } });
  // Two seeds hash seven passwords: slow on a loaded machine.
}, 300_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await harness.close();
});

describe("label review", () => {
  it("a viewer reads the queue and the quality but may not review or import, and nothing is stored", async () => {
    const viewer = harness.callerAs({ userId: a.users.viewer.id });
    const queue = await viewer.labelReview.queue({ runId: a.run.id });
    expect(queue.role).toBe("viewer");
    expect(queue.items.length).toBeGreaterThan(0);
    expect((await viewer.labelReview.quality({ runId: a.run.id })).detectors.map((d) => d.label)).toEqual(["repetition_loop", "truncated"]);
    const item = queue.items[0]!;
    expect(await httpStatusOf(viewer.labelReview.submit({ rolloutId: item.rolloutId, label: item.label, holds: true, fromQueue: true }))).toBe(403);
    const line = { rolloutUid: "v1-0", branch: 1, detector: "truncated", verdict: "confirmed" as const, reviewer: "someone" };
    expect(await httpStatusOf(viewer.labelReview.import({ runId: a.run.id, lines: [line] }))).toBe(403);
    // A person outside the run's organization does not see the run at all.
    expect(await httpStatusOf(harness.callerAs({ userId: b.users.admin.id }).labelReview.queue({ runId: a.run.id }))).toBe(404);
    expect(await db.review.count()).toBe(0);
  });

  it("an approver works the queue: each answer is a review with its sampling weight and an audit event, and precision and recall follow", async () => {
    const approver = harness.callerAs({ userId: a.users.approver.id });
    const { items } = await approver.labelReview.queue({ runId: a.run.id });
    // The seed labels v1's 60 rollouts: 12 truncated, 9 looping; each detector ran on all 60.
    const truncatedItems = items.filter((i) => i.label === "truncated");
    expect(truncatedItems.filter((i) => i.stratum === "flagged")).toHaveLength(12);
    expect(truncatedItems.filter((i) => i.stratum === "unflagged")).toHaveLength(30);
    const rollouts = await db.rollout.findMany({ where: { id: { in: items.map((i) => BigInt(i.rolloutId)) } }, select: { id: true, truncated: true, response: true } });
    const byId = new Map(rollouts.map((r) => [String(r.id), r]));
    const firstFlagged = truncatedItems.find((i) => i.stratum === "flagged")!;
    const firstUnflagged = truncatedItems.find((i) => i.stratum === "unflagged")!;
    for (const item of items) {
      const r = byId.get(item.rolloutId)!;
      // The person rejects one truncation flag and finds one truncation the detector missed; the rest as the seed made them.
      const truth = item.label === "truncated" ? r.truncated : r.response!.includes("so the answer is so the answer is");
      const holds = item === firstFlagged ? false : item === firstUnflagged ? true : truth;
      await approver.labelReview.submit({ rolloutId: item.rolloutId, label: item.label, holds, fromQueue: true, ...(item === firstFlagged ? { note: "cut at a sentence end" } : {}) });
    }

    const after = await approver.labelReview.queue({ runId: a.run.id });
    expect(after.items.every((i) => i.reviewed)).toBe(true);
    expect(after.progress.find((p) => p.label === "truncated" && p.stratum === "flagged")).toMatchObject({ reviewed: 12, planned: 12 });
    expect(await db.event.count({ where: { runId: a.run.id, type: "label_review" } })).toBe(items.length);
    const missed = await db.review.findUniqueOrThrow({ where: { rolloutId_label: { rolloutId: BigInt(firstUnflagged.rolloutId), label: "truncated" } } });
    expect(missed).toMatchObject({ verdict: "missed", flagged: false, stratum: "unflagged", reviewerId: a.users.approver.id });
    expect(missed.weight).toBeCloseTo(48 / 30, 12);
    const rejected = await db.rolloutLabel.findFirstOrThrow({ where: { rolloutId: BigInt(firstFlagged.rolloutId), label: "truncated" } });
    expect(rejected.review).toBe("rejected");

    const quality = await approver.labelReview.quality({ runId: a.run.id });
    const truncated = quality.detectors.find((d) => d.label === "truncated")!;
    expect(truncated.reviewed).toBe(12);
    expect(truncated.precision).toBeCloseTo(11 / 12, 12);
    // 11 true flags; 1 miss in 30 of 48 unflagged rollouts stands for 1.6 misses.
    expect(truncated.recall!.recall).toBeCloseTo(11 / (11 + 1.6), 9);
    expect(truncated.recallReviewed).toBe(30);
    // On each branch it labelled: its flags there, as a recount of the branch's labels finds them.
    expect(truncated.branches.length).toBeGreaterThan(0);
    expect(truncated.branches.reduce((n, b) => n + b.flagged, 0)).toBe(await db.rolloutLabel.count({ where: { detectorId: truncated.detectorId, rollout: { runId: a.run.id, split: { not: "sealed" } } } }));
    for (const b of truncated.branches) {
      const labelled = await db.rolloutLabel.count({ where: { detectorId: truncated.detectorId, rollout: { branchId: b.branchId, split: { not: "sealed" } } } });
      expect(b.flagged, `v${b.version}`).toBe(labelled);
      expect(b.rollouts).toBeGreaterThanOrEqual(b.flagged);
    }
    const detail = await approver.rollout.byId({ rolloutId: firstFlagged.rolloutId });
    expect(detail.labels.find((l) => l.label === "truncated")!.quality).toMatch(/^truncated · precision 0\.92 \[0\.\d\d, 0\.\d\d\] · 12 reviewed$/);
    expect(detail.reviews.find((r) => r.label === "truncated")).toMatchObject({ verdict: "rejected", note: "cut at a sentence end" });
  });

  it("a label added by hand outside the queue counts as missed, without a weight", async () => {
    const approver = harness.callerAs({ userId: a.users.approver.id });
    const unlabelled = await db.rollout.findFirstOrThrow({ where: { branchId: a.branches.v2.id }, select: { id: true } });
    const review = await approver.labelReview.submit({ rolloutId: String(unlabelled.id), label: "repetition_loop", holds: true, note: "loops in the middle" });
    expect(review).toMatchObject({ verdict: "missed", flagged: false, weight: null, stratum: null, detectorId: a.detectors.repetition.id });
    expect(await httpStatusOf(approver.labelReview.submit({ rolloutId: String(unlabelled.id), label: "truncated", holds: true, fromQueue: true }))).toBe(400);
  });

  it("round-trips the reviews through a truth file with the CLI, and prints the quality", async () => {
    const file = join(dir, "truth.jsonl");
    const exported = cli("labels", "export", a.run.id, "--out", file);
    expect(exported.status, exported.stderr).toBe(0);
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBe(await db.review.count({ where: { runId: a.run.id } }));
    expect(lines.find((l) => l.note === "cut at a sentence end")).toMatchObject({ run: a.run.id, detector: "truncated", verdict: "rejected", branch: 1 });

    const imported = cli("labels", "import", file, "--run", b.run.id);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`${lines.length} reviews imported into run ${b.run.id}`);
    const strip = ({ run: _run, ...rest }: Record<string, unknown>) => rest;
    const back = await harness.callerAs({ userId: b.users.viewer.id }).labelReview.export({ runId: b.run.id });
    expect(back.map((l) => strip(JSON.parse(JSON.stringify(l)) as Record<string, unknown>))).toEqual(lines.map(strip));

    const quality = await harness.callerAs({ userId: b.users.viewer.id }).labelReview.quality({ runId: b.run.id });
    const truncated = quality.detectors.find((d) => d.label === "truncated")!;
    expect(truncated.precision).toBeCloseTo(11 / 12, 12);
    // Imported reviews carry no sampling weights: they measure precision, not recall.
    expect(truncated.recall).toBeNull();
    const text = cli("labels", "quality", a.run.id);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/truncated · precision 0\.92 \[0\.\d\d, 0\.\d\d\] · 12 reviewed · recall 0\.87/);
  }, 600_000);

  it("shows an imported missed review in labels quality: kept beside recall, not estimated from, and a label no detector has apart", async () => {
    const quality = () => {
      const out = cli("labels", "quality", b.run.id, "--json");
      expect(out.status, out.stderr).toBe(0);
      return JSON.parse(out.stdout) as { detectors: { label: string; missedOutsideSample: number; recallReviewed: number }[]; unmeasured: { label: string; reviews: number; missed: number }[] };
    };
    const before = quality().detectors.find((d) => d.label === "truncated")!;
    const reviewedRollouts = (await db.review.findMany({ where: { runId: b.run.id, label: "truncated" }, select: { rolloutId: true } })).map((r) => r.rolloutId);
    const unflagged = await db.rollout.findFirstOrThrow({ where: { branchId: b.branches.v2.id, split: { not: "sealed" }, id: { notIn: reviewedRollouts }, labels: { none: { label: "truncated" } } }, select: { uid: true, branch: { select: { version: true } } } });
    const file = join(dir, "missed.jsonl");
    writeFileSync(
      file,
      [
        { rolloutUid: unflagged.uid, branch: unflagged.branch.version, detector: "truncated", verdict: "missed", reviewer: "Ada", note: "stops mid-word" },
        { rolloutUid: unflagged.uid, branch: unflagged.branch.version, detector: "off_topic", verdict: "missed", reviewer: "Ada" },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n") + "\n",
    );
    const imported = cli("labels", "import", file, "--run", b.run.id);
    expect(imported.status, imported.stderr).toBe(0);

    const after = quality();
    const truncated = after.detectors.find((d) => d.label === "truncated")!;
    expect(truncated.missedOutsideSample).toBe(before.missedOutsideSample + 1);
    expect(truncated.recallReviewed).toBe(before.recallReviewed);
    expect(after.unmeasured).toEqual([{ label: "off_topic", reviews: 1, missed: 1 }]);
    const text = cli("labels", "quality", b.run.id);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^truncated · .* · ${truncated.missedOutsideSample} missed outside the queue's sample \\(imported or added by hand; no sampling weight, so not in recall\\)`, "m"));
    expect(text.stdout).toMatch(/^off_topic · 1 reviews kept \(1 missed\), not measured: no detector of harness v\d+ has this label$/m);
  }, 300_000);

  it("refuses a whole truth file when a line names a rollout the run does not have, naming the line", async () => {
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, `${JSON.stringify({ rolloutUid: "v1-1", detector: "truncated", verdict: "confirmed", reviewer: "x" })}\n${JSON.stringify({ rolloutUid: "nope", detector: "truncated", verdict: "confirmed", reviewer: "x" })}\n`);
    const before = await db.review.count();
    const out = cli("labels", "import", file, "--run", b.run.id);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain("nothing imported: line 2: no rollout with uid nope in this run");
    writeFileSync(file, `${JSON.stringify({ rolloutUid: "v1-1", detector: "truncated", verdict: "maybe", reviewer: "x" })}\n`);
    expect(cli("labels", "import", file, "--run", b.run.id).stderr).toMatch(/bad\.jsonl line 1: verdict: /);
    expect(await db.review.count()).toBe(before);
  }, 300_000);
});
