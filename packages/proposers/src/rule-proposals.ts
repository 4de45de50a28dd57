import type { Intervention, ProposerInput } from "@evotrainer/core";
import type { Proposal } from "./change.ts";
import type { PlaybookRule } from "./playbook-rule.ts";
import { severity, symptomFinding } from "./symptom-finding.ts";

/**
 * The playbook's interventions for the report's findings. Rules are ranked by the severity of the
 * finding that called for them (playbook order breaking ties) and taken round-robin, so the first
 * K proposals answer as many different findings as they can.
 */
export function ruleProposals(input: Pick<ProposerInput, "report" | "recipe" | "domain">, playbook: readonly PlaybookRule[]): Intervention[] {
  const called = playbook
    .map((rule, order) => ({ rule, order, finding: symptomFinding(rule.symptom, input.report) }))
    .filter((c) => c.finding !== undefined)
    .sort((a, b) => severity(b.finding!) - severity(a.finding!) || a.order - b.order);

  const perRule = called.map(({ rule, finding }) =>
    rule.changes.flatMap((change) => {
      const p: Proposal | undefined = change.propose({ domain: input.domain, recipe: input.recipe, report: input.report, finding: finding! });
      return p ? [{ ...p, provenance: { kind: "rule" as const, ref: `${rule.id}/${change.id}` } }] : [];
    }),
  );
  const out: Intervention[] = [];
  for (let round = 0; perRule.some((list) => round < list.length); round++) {
    for (const list of perRule) if (round < list.length) out.push(list[round]!);
  }
  return out;
}
