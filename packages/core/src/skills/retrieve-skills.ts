import type { Domain } from "../harness/detector.ts";
import type { BranchMetrics } from "../harness/metrics.ts";
import { matchingSkills, trackRecord, triggerFires, type Skill } from "../skill.ts";

export interface RetrievedSkill {
  skill: Skill;
  /** Verified in this domain, or borrowed from another one as a fallback. */
  sameDomain: boolean;
}

/**
 * Skills whose trigger fires on these metrics: those verified in this domain first (best track
 * record first), then those of other domains, which carry evidence only from elsewhere.
 */
export function retrieveSkills(skills: readonly Skill[], metrics: BranchMetrics, domain: Domain): RetrievedSkill[] {
  const same = matchingSkills(skills, metrics, domain);
  const other = skills
    .filter((s) => !s.domains.includes(domain) && triggerFires(s.trigger, metrics))
    .sort((a, b) => trackRecord(b) - trackRecord(a) || a.id.localeCompare(b.id));
  return [...same.map((skill) => ({ skill, sameDomain: true })), ...other.map((skill) => ({ skill, sameDomain: false }))];
}
