import type { Rollout } from "@evotrainer/contract";
import {
  capString, EVALUATION_PATHS, helperSignatures, matchingSkills, ROLLOUT_VARIABLES,
  type Finding, type LineageEntry, type LockedEvaluation, type ProposerInput,
} from "@evotrainer/core";
import type { LlmContext, PastProposal } from "./llm-context.ts";

const PROMPT_CHARS = 400;
const RESPONSE_CHARS = 1_500;
// More examples than this never fit even the largest evidence budget.
const MAX_EXAMPLES = 200;

/**
 * The evidence of one proposal prompt, at most `maxChars` long: the task, the parent's recipe and
 * its factors, the health report, the lineage (veto reasons included), matching skills, earlier
 * proposals with their backtests and calibration, then example rollouts until the budget is spent.
 * Sections come in that order of importance; a list that does not fit is cut, newest items kept.
 *
 * Only the locked evaluation's recipe paths are named, never its splits, and examples come from
 * the training split only: nothing of the sealed split (nor of the promotion split the gates use)
 * can reach the model.
 */
export function buildEvidence(input: ProposerInput, context: LlmContext, locked: Pick<LockedEvaluation, "lockedPaths">, maxChars: number): string {
  const out = new Budget(maxChars);
  out.section("Task", [
    `Domain: ${input.domain}. Propose up to ${input.k} single-factor interventions on the parent recipe below.`,
    ...(input.revision !== undefined ? [`A person asked for a revision: ${JSON.stringify(input.revision)}`] : []),
  ]);
  out.section("Parent recipe", [JSON.stringify(input.recipe)]);
  out.section("Factors (the only things an intervention may change, one per intervention)", input.factors.map((f) => `${f.pattern.join(".")}: ${f.description}${f.values ? ` (only: ${f.values.join(", ")})` : ""}`));
  out.section("Locked evaluation paths (never patch these or anything under them)", [...EVALUATION_PATHS, ...locked.lockedPaths]);
  out.section("Health report of the parent", healthLines(input));
  out.section("Lineage (newest first; vetoes and failed gates are negative evidence)", [...input.lineage].reverse().map(lineageLine));
  out.section("Earlier proposals of this run with their backtests (newest first)", [
    ...(context.calibration ? [`Backtest calibration so far: ${JSON.stringify(context.calibration)}`] : []),
    ...[...context.history].reverse().map(historyLine),
  ]);
  out.section(
    "Skills whose trigger fires on this report",
    matchingSkills(input.skills, input.report.metrics, input.domain).map((s) =>
      JSON.stringify({ name: s.name, trigger: s.trigger, template: { factor: s.template.factor, patch: s.template.patch, hypothesis: s.template.hypothesis }, successes: s.successes, failures: s.failures }),
    ),
  );
  out.section("Detector vocabulary (CEL over one rollout)", [
    `Variables: ${Object.keys(ROLLOUT_VARIABLES).join(", ")}`,
    `Functions: ${helperSignatures().join("; ")}`,
  ]);
  out.section("Example rollouts of the parent (training split)", examples(context));
  return out.text();
}

/**
 * Appends text while it fits. A section starts only if its title and first line fit; the first
 * line that does not fit ends it. What was left out is said, so the model knows it saw a part.
 */
class Budget {
  private readonly parts: string[] = [];
  private readonly skipped: string[] = [];
  private used = 0;

  constructor(private readonly maxChars: number) {}

  private add(text: string): boolean {
    if (this.used + text.length > this.maxChars) return false;
    this.parts.push(text);
    this.used += text.length;
    return true;
  }

  section(title: string, lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (!this.add(`## ${title}\n${lines[0]}\n`)) {
      this.skipped.push(title);
      return;
    }
    let shown = 1;
    for (const line of lines.slice(1)) {
      if (!this.add(`${line}\n`)) break;
      shown++;
    }
    if (shown < lines.length) this.add(`(${lines.length - shown} more left out for length)\n`);
    this.add("\n");
  }

  text(): string {
    const note = this.skipped.length > 0 ? `(Sections left out for length: ${this.skipped.join("; ")})\n` : "";
    return this.parts.join("") + (this.used + note.length <= this.maxChars ? note : "");
  }
}

function healthLines(input: ProposerInput): string[] {
  const { report } = input;
  const finding = (f: Finding) =>
    JSON.stringify({ level: f.level, source: f.source, title: f.title, metrics: f.evidence.metrics, counts: f.evidence.counts, ...(f.informativeness ? { informativeness: f.informativeness } : {}) });
  return [
    `Harness v${report.harnessVersion}; worst level ${report.worst}.`,
    `Metrics: ${JSON.stringify(report.metrics)}`,
    ...(["score", "signal", "behaviour"] as const).flatMap((layer) => report.layers[layer].map((f) => `${layer}: ${finding(f)}`)),
  ];
}

function lineageLine(e: LineageEntry): string {
  return JSON.stringify({
    branch: e.branchId,
    parent: e.parentBranchId ?? null,
    intervention: e.intervention
      ? { factor: e.intervention.factor, hypothesis: e.intervention.hypothesis, patch: e.intervention.patch, targetMetric: e.intervention.targetMetric, expected: e.intervention.expectedEffect }
      : null,
    verdict: e.verdict ? { promoted: e.verdict.promote, checks: e.verdict.checks.map((c) => `${c.passed ? "pass" : "FAIL"} ${c.name}: ${c.detail}`) } : null,
    decisions: e.decisions.map((d) => ({
      kind: d.kind,
      by: d.actor.kind,
      ...(d.kind === "veto" ? { reason: d.reason } : d.kind === "revise" ? { instructions: d.instructions } : d.note ? { note: d.note } : {}),
    })),
  });
}

function historyLine(p: PastProposal): string {
  return JSON.stringify({
    round: p.round,
    factor: p.factor,
    hypothesis: p.hypothesis,
    targetMetric: p.targetMetric,
    by: p.provenance,
    status: p.status,
    ...(p.rejection ? { rejection: p.rejection } : {}),
    ...(p.backtest ? { backtest: { predicted: p.backtest.predicted, rank: p.backtest.rank, kept: p.backtest.kept } } : {}),
    ...(p.outcome ? { outcome: p.outcome } : {}),
  });
}

/**
 * Training rollouts in the order worth reading: each label's in turn (most frequent label first),
 * then the worst-rewarded unlabelled ones.
 */
function examples(context: LlmContext): string[] {
  const train = context.rollouts.filter((r) => r.split === "train");
  const byUid = new Map(train.map((r) => [r.uid, r]));
  const labelsOf = new Map<string, string[]>();
  const byLabel = new Map<string, Rollout[]>();
  for (const l of context.labels) {
    const r = byUid.get(l.rolloutUid);
    if (!r) continue;
    labelsOf.set(r.uid, [...(labelsOf.get(r.uid) ?? []), l.label]);
    byLabel.set(l.label, [...(byLabel.get(l.label) ?? []), r]);
  }
  const queues = [...byLabel.entries()].sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b)).map(([, rs]) => rs);
  const ordered: Rollout[] = [];
  for (let i = 0; queues.some((q) => i < q.length); i++) for (const q of queues) if (i < q.length) ordered.push(q[i]!);
  // Lowest reward first; an unknown result last.
  ordered.push(...[...train].sort((a, b) => (a.reward ?? Infinity) - (b.reward ?? Infinity)));
  const unique = [...new Map(ordered.map((r) => [r.uid, r])).values()].slice(0, MAX_EXAMPLES);
  return unique.map((r) => exampleLine(r, labelsOf.get(r.uid) ?? []));
}

function exampleLine(r: Rollout, labels: readonly string[]): string {
  const response = r.response ?? (r.trajectory ?? []).map((t) => `[${t.role}${t.toolCalls?.length ? ` calls ${t.toolCalls.map((c) => c.name).join(",")}` : ""}] ${t.content}`).join("\n");
  return JSON.stringify({
    uid: r.uid,
    step: r.step,
    reward: r.reward,
    components: r.rewardComponents,
    labels,
    finishReason: r.finishReason ?? null,
    truncated: r.truncated,
    responseTokens: r.responseTokens,
    ...(r.testResults ? { tests: r.testResults } : {}),
    prompt: capString(r.prompt, PROMPT_CHARS),
    response: capString(response, RESPONSE_CHARS),
  });
}
