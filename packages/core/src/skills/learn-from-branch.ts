import type { Skill } from "../skill.ts";
import { createSkill, skillEvidence, type SkillSource } from "./create-skill.ts";
import { recordApplication } from "./update-skill.ts";

export interface Learned {
  skills: Skill[];
  /** Ids of skills whose counts changed. */
  updated: string[];
  created?: Skill;
}

/**
 * Step 10 of the loop for one finished branch: every skill it applied counts the outcome; a
 * success that applied no skill becomes a new one. A failure never creates a skill.
 */
export function learnFromBranch(skills: readonly Skill[], source: SkillSource, success: boolean): Learned {
  const recorded = recordApplication(skills, source.intervention, {
    success,
    domain: source.domain,
    ...(success ? { evidence: skillEvidence(source) } : {}),
  });
  if (!success || recorded.updated.length > 0) return recorded;
  const created = createSkill(source);
  return created.ok ? { ...recorded, skills: [...recorded.skills, created.skill], created: created.skill } : recorded;
}
