import type { Domain } from "../harness/detector.ts";
import type { Intervention } from "../intervention.ts";
import { interventionKey } from "../intervention-key.ts";
import type { Skill, SkillEvidence } from "../skill.ts";

export interface SkillOutcome {
  success: boolean;
  /** Added on success: the branch that verified the skill again. */
  evidence?: SkillEvidence;
  /** The domain it was applied in; a success there adds the domain to the skill's. */
  domain?: Domain;
}

/** The skill after one more application: a success or a failure counted, evidence and domain added on success. */
export function updateSkill(skill: Skill, outcome: SkillOutcome): Skill {
  if (!outcome.success) return { ...skill, failures: skill.failures + 1 };
  const evidence = outcome.evidence ? [...skill.evidence, outcome.evidence] : skill.evidence;
  const domains = outcome.domain && !skill.domains.includes(outcome.domain) ? [...skill.domains, outcome.domain] : skill.domains;
  return { ...skill, successes: skill.successes + 1, evidence, domains };
}

/**
 * Skills this intervention applied: the one it came from, and any whose template is the same change
 * (a rule that rediscovers a skill's change tests the same knowledge).
 */
export function appliedSkills(skills: readonly Skill[], intervention: Intervention): Skill[] {
  const key = interventionKey(intervention);
  const ref = intervention.provenance.kind === "skill" ? intervention.provenance.ref : undefined;
  return skills.filter((s) => s.id === ref || interventionKey(s.template) === key);
}

/** Every skill the intervention applied, updated with the outcome; the others unchanged. */
export function recordApplication(
  skills: readonly Skill[],
  intervention: Intervention,
  outcome: SkillOutcome,
): { skills: Skill[]; updated: string[] } {
  const applied = new Set(appliedSkills(skills, intervention).map((s) => s.id));
  return {
    skills: skills.map((s) => (applied.has(s.id) ? updateSkill(s, outcome) : s)),
    updated: [...applied],
  };
}
