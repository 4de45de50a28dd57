import { retrieveSkills, type Intervention, type ProposerInput } from "@evotrainer/core";

/**
 * Interventions from skills whose trigger fires on the report's metrics, this domain's first. A
 * skill that failed more often than it succeeded has shown it does not carry over, so it is left out.
 */
export function skillProposals(input: Pick<ProposerInput, "skills" | "report" | "domain">): Intervention[] {
  return retrieveSkills(input.skills, input.report.metrics, input.domain)
    .filter(({ skill }) => skill.failures <= skill.successes)
    .map(({ skill }) => ({ ...skill.template, provenance: { kind: "skill", ref: skill.id } }));
}
