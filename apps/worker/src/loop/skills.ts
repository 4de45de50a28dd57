import { learnFromBranch, skillSchema, type Check, type Intervention, type Skill } from "@evotrainer/core";
import { json, recordEvent, type Database } from "@evotrainer/db";
import type { LoopDeps } from "./deps.ts";
import { runConfigOf } from "@evotrainer/core";
import { gateSide } from "./gate-side.ts";

/**
 * The organization's skill library in core's shape. A stored skill that no longer parses (edited by
 * hand, an older format) is left out rather than stopping every proposal and every lesson.
 */
export async function loadSkills(db: Database, organizationId: string): Promise<Skill[]> {
  const rows = await db.skill.findMany({ where: { organizationId } });
  return rows.flatMap((row) => {
    const parsed = skillSchema.safeParse({
      id: row.id,
      name: row.name,
      trigger: row.trigger,
      template: row.template,
      expectedOutcome: row.expectedOutcome,
      evidence: row.evidence,
      domains: row.domains,
      successes: row.successCount,
      failures: row.failureCount,
    });
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * Step 10 of the loop for a settled branch: every skill its intervention applied counts the
 * outcome, and a verified success that applied none becomes a new skill.
 */
export async function learnSkills(deps: LoopDeps, branchId: string, success: boolean): Promise<void> {
  const { db } = deps;
  const branch = await db.branch.findUniqueOrThrow({ where: { id: branchId }, include: { run: true, intervention: true, verdict: true } });
  if (!branch.intervention || !branch.verdict || !branch.parentId) return;
  // Learned once per intervention: a step repeated after a crash does not count the outcome twice.
  if ((await db.skillApplication.count({ where: { interventionId: branch.intervention.id } })) > 0) return;
  const config = runConfigOf(branch.run);
  const { harness } = await deps.harnesses.get(branch.run.harnessVersionId!);
  const parent = await gateSide(deps, harness, branch.parentId);
  const stored = branch.intervention;
  const intervention: Intervention = {
    hypothesis: stored.hypothesis,
    targetMetric: stored.targetMetric,
    factor: stored.factor,
    patch: stored.patch as Intervention["patch"],
    expectedEffect: stored.expectedEffect as Intervention["expectedEffect"],
    falsification: stored.falsification,
    provenance: { kind: stored.provenance, ...(stored.skillId ? { ref: stored.skillId } : {}) },
  };
  const ci: [number, number] = [branch.verdict.ciLow ?? 0, branch.verdict.ciHigh ?? 0];
  const bootstrap = { tasks: 0, delta: branch.verdict.deltaVsParent ?? 0, ci, confidence: config.gate.confidence, pNotBetter: 0 };
  const skills = await loadSkills(db, branch.run.organizationId);
  const learned = learnFromBranch(
    skills,
    {
      runId: branch.runId,
      branchId,
      parentBranchId: branch.parentId,
      domain: config.domain,
      intervention,
      report: parent.report,
      healthRules: harness.definition.healthRules,
      verdict: { promote: success, checks: branch.verdict.checks as unknown as Check[], vsParent: bootstrap, vsBest: bootstrap },
    },
    success,
  );
  const changed = learned.skills.filter((s) => learned.updated.includes(s.id) || s.id === learned.created?.id);
  await db.$transaction(async (tx) => {
    for (const skill of changed) {
      const data = {
        name: skill.name,
        trigger: skill.trigger,
        template: json(skill.template),
        expectedOutcome: skill.expectedOutcome,
        evidence: json(skill.evidence),
        domains: skill.domains,
        successCount: skill.successes,
        failureCount: skill.failures,
      };
      // Core names a new skill by its content, the same in every organization: the row gets an id of its
      // own, so one organization's library never writes into another's.
      const created = skill.id === learned.created?.id;
      const row = created
        ? await tx.skill.create({ data: { organizationId: branch.run.organizationId, ...data } })
        : await tx.skill.update({ where: { id: skill.id, organizationId: branch.run.organizationId }, data });
      await tx.skillApplication.upsert({
        where: { skillId_interventionId: { skillId: row.id, interventionId: stored.id } },
        update: { outcome: success ? "success" : "failure" },
        create: { skillId: row.id, interventionId: stored.id, outcome: success ? "success" : "failure" },
      });
      await recordEvent(tx, {
        runId: branch.runId,
        branchId,
        type: "skill",
        actor: "system",
        payload: { skillId: row.id, name: skill.name, created, successes: skill.successes, failures: skill.failures, trigger: skill.trigger },
      });
    }
  });
}
