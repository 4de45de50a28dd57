"use client";

import type { RouterOutputs } from "@evotrainer/api";
import { fmtDelta, fmtNumber, fmtScore } from "../format";
import { IntervalChart } from "./interval-chart";
import { nothingMeasured } from "./nothing-measured";

type Verdict = NonNullable<RouterOutputs["branch"]["byId"]["verdict"]>;
export type Check = { name: string; passed: boolean; detail: string; numbers?: Record<string, unknown>; blocking?: boolean };

// What each check asks, in the words a reviewer would use.
const QUESTION: Record<string, string> = {
  main_score_vs_control: "Does it beat its control (the parent's recipe trained again) by more than another training seed would?",
  main_score_vs_parent: "Is it better than its parent?",
  main_score_vs_best: "Does it stay within the margin of the best branch so far?",
  targeted_metric: "Did the metric it targeted move the way it predicted?",
  no_new_crit: "Did it avoid new critical health findings?",
  validity_limit: "Is this validity label under its limit?",
  no_control_arm: "Was a control trained beside it?",
  health: "Is the branch healthy?",
};

function fmtValue(v: unknown): string {
  if (typeof v === "number") return fmtNumber(v);
  if (v === null || v === undefined || v === "") return "—";
  return String(v);
}

function Numbers({ numbers }: { numbers: Record<string, unknown> }) {
  const entries = Object.entries(numbers).filter(([, v]) => v !== "" && v !== undefined);
  if (entries.length === 0) return null;
  if (nothingMeasured(numbers)) {
    return (
      <p className="muted" data-testid="no-difference">
        No difference was measured: the two sides scored the same, with no spread between tasks.
      </p>
    );
  }
  return (
    <dl className="numbers">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{fmtValue(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function CheckInterval({ check }: { check: Check }) {
  const n = check.numbers ?? {};
  const { delta, ciLow, ciHigh, margin } = n as Record<string, unknown>;
  if (typeof delta !== "number" || typeof ciLow !== "number" || typeof ciHigh !== "number") return null;
  const bar = check.name === "main_score_vs_best" && typeof margin === "number" ? -margin : 0;
  return <IntervalChart low={ciLow} high={ciHigh} point={delta} bar={bar} barLabel={bar === 0 ? "0" : `−${fmtValue(margin)}`} />;
}

/** Each check as a question, its answer and its numbers; the intervals drawn against the bar they must clear. */
export function VerdictPanel({ verdict }: { verdict: Verdict }) {
  const checks = (verdict.checks ?? []) as Check[];
  const blockingFailed = checks.filter((c) => !c.passed && c.blocking !== false);
  return (
    <>
      <p>
        <span className={`pill ${verdict.passed ? "ok" : "bad"}`}>{verdict.passed ? "passed" : "failed"}</span>{" "}
        {verdict.passed ? "Every deciding check passed." : `${blockingFailed.length} of ${checks.filter((c) => c.blocking !== false).length} deciding checks failed.`} Promotion score{" "}
        {fmtScore(verdict.promotionScore)} · parent {fmtScore(verdict.parentScore)} · best {fmtScore(verdict.bestScore)} · Δ vs parent {fmtDelta(verdict.deltaVsParent)}, bootstrap CI [
        {fmtDelta(verdict.ciLow)}, {fmtDelta(verdict.ciHigh)}]
      </p>
      <ul className="checks">
        {checks.map((c, i) => (
          <li key={`${c.name}-${i}`} data-testid="verdict-check" data-check={c.name}>
            <div className="check-head">
              {c.blocking === false ? (
                <span className="pill" title="shown as context; it does not decide the promotion">
                  context
                </span>
              ) : (
                <span className={`pill ${c.passed ? "ok" : "bad"}`}>{c.passed ? "pass" : "fail"}</span>
              )}
              <strong>{QUESTION[c.name] ?? c.name}</strong> <code className="muted">{c.name}</code>
            </div>
            <p>{c.detail}</p>
            <CheckInterval check={c} />
            <Numbers numbers={c.numbers ?? {}} />
          </li>
        ))}
      </ul>
    </>
  );
}
