import type { Database } from "@evotrainer/db";

const sorted = (rows: string[]) => rows.sort();
const counts = (keys: string[]) => Object.fromEntries(sorted([...new Set(keys)]).map((k) => [k, keys.filter((x) => x === k).length]));

/**
 * Everything a run leaves in Postgres, by branch version rather than by id, without what is wall-clock
 * by nature (timestamps, GPU seconds, the trainer's own step timings); events of `leaveOutEvents` types
 * are not counted (what a disturbance itself records).
 */
export async function runTables(db: Database, runId: string, options: { leaveOutEvents?: readonly string[] } = {}) {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const branches = await db.branch.findMany({ where: { runId }, include: { intervention: true, verdict: true, decisions: true } });
  const version = new Map(branches.map((b) => [b.id, b.version]));
  const v = (branchId: string | null) => (branchId ? `v${version.get(branchId)}` : "run");
  const rollouts = await db.rollout.findMany({ where: { runId }, select: { branchId: true, split: true, step: true, uid: true, reward: true, responseTokens: true } });
  const labels = await db.rolloutLabel.findMany({ where: { rollout: { runId } }, select: { branchId: true, label: true, rollout: { select: { uid: true } } } });
  const stats = await db.labelStat.findMany({ where: { branch: { runId } } });
  const points = await db.metricPoint.findMany({ where: { branch: { runId }, NOT: { name: { startsWith: "trainer/timing_s/" } } } });
  const leftOut = new Set<string>(options.leaveOutEvents ?? []);
  const events = (await db.event.findMany({ where: { runId }, select: { type: true } })).filter((e) => !leftOut.has(e.type));
  const skills = await db.skill.findMany({ where: { organizationId: run.organizationId }, select: { name: true, successCount: true, failureCount: true } });
  return {
    status: run.status,
    sealed: (run.finalReport as { sealed?: { score: number } } | null)?.sealed?.score ?? null,
    rollouts: sorted(rollouts.map((r) => `${v(r.branchId)} ${r.split} ${r.step} ${r.uid} ${r.reward} ${r.responseTokens}`)),
    labels: sorted(labels.map((l) => `${v(l.branchId)} ${l.rollout.uid} ${l.label}`)),
    labelStats: sorted(stats.map((s) => `${v(s.branchId)} ${s.split} ${s.step} ${s.label} ${s.count}/${s.total}`)),
    metricPoints: sorted(points.map((p) => `${v(p.branchId)} ${p.name} ${p.step} ${p.value.toPrecision(12)}`)),
    branches: sorted(branches.map((b) => `v${b.version} ${b.kind} ${b.status} ${b.intervention?.factor ?? "-"} parent ${b.parentId ? v(b.parentId) : "-"} score ${b.promotionScore}`)),
    verdicts: sorted(
      branches.flatMap((b) => (b.verdict ? [`v${b.version} passed ${b.verdict.passed} score ${b.verdict.promotionScore} best ${b.verdict.bestScore} checks ${JSON.stringify(b.verdict.checks)} report ${b.verdict.healthReport ? "stored" : "missing"}`] : [])),
    ),
    decisions: sorted(branches.flatMap((b) => b.decisions.map((d) => `v${b.version} ${d.stage} ${d.kind} ${d.actorType} ${d.reason}`))),
    skills: sorted(skills.map((s) => `${s.name} +${s.successCount} -${s.failureCount}`)),
    eventsByType: counts(events.map((e) => e.type)),
  };
}
