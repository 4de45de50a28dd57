"use client";

import type { RouterOutputs } from "@evotrainer/api";
import { fmtDelta, fmtNumber } from "../format";
import { AdvantageChart, type AdvantageRow } from "./advantage-chart";

type Backtest = NonNullable<NonNullable<RouterOutputs["branch"]["byId"]["intervention"]>["backtest"]>;

// The replay's report as core's `backtest()` writes it; every part optional, since older rows may lack one.
interface Pair {
  before: number;
  after: number;
}
interface Report {
  rollouts?: number;
  groups?: number;
  kept?: Pair;
  deadGroups?: Pair & { rescued: number; killed: number };
  orderingViolations?: Pair & { introduced: number; groupsAffected: number };
  advantageByLabel?: Record<string, { count: number; before: { scaled: number }; after: { scaled: number } }>;
  wronglyCut?: { count: number; rateOfSuccesses: number };
  predicted?: { metric: string; direction: string; size: number; basis: string; proxy?: string; agreesWithExpectation: boolean };
}

function Row({ what, before, after, note }: { what: string; before: number | undefined; after: number | undefined; note?: string }) {
  if (before === undefined || after === undefined) return null;
  return (
    <tr>
      <th>{what}</th>
      <td>{fmtNumber(before)}</td>
      <td>{fmtNumber(after)}</td>
      <td className={after > before ? "up" : after < before ? "down" : ""}>{fmtDelta(after - before)}</td>
      <td className="muted">{note}</td>
    </tr>
  );
}

const directionOf = (x: number) => (x > 0 ? "up" : x < 0 ? "down" : "flat");

function heldDirection(predicted: string, realised: number): boolean {
  return predicted === "up" ? realised > 0 : predicted === "down" ? realised < 0 : Math.abs(realised) < 1e-9;
}

function predictedInWords(p: NonNullable<Report["predicted"]>): string {
  const what = p.basis === "proxy" ? `${p.metric} (through its proxy ${p.proxy ?? "?"})` : p.metric;
  if (p.direction === "flat") return `${what} should not move`;
  return `${what} should go ${p.direction} by about ${fmtNumber(Math.abs(p.size))}${p.agreesWithExpectation ? ", as the hypothesis expects" : ", against what the hypothesis expects"}`;
}

/**
 * The backtest in words and a compact table: what replaying the intervention on the parent's logged
 * rollouts changed, what it predicts, and, once the branch has trained, what training realised.
 */
export function BacktestPanel({ backtest, trained }: { backtest: Backtest; trained: boolean }) {
  const r = backtest.report as Report;
  const advantages: AdvantageRow[] = Object.entries(r.advantageByLabel ?? {})
    .map(([label, a]) => ({ label: label === "_success" ? "successes" : label === "_failure" ? "failures" : label, count: a.count, before: a.before.scaled, after: a.after.scaled }))
    .sort((a, b) => b.count - a.count);
  const realised = backtest.realisedEffect;
  return (
    <>
      <dl className="facts">
        <dt>predicted</dt>
        <dd>
          {r.predicted ? predictedInWords(r.predicted) : fmtDelta(backtest.predictedEffect)}
        </dd>
        <dt>realised</dt>
        <dd data-testid="realised-effect">
          {realised !== null
            ? `${fmtDelta(realised)} after training: the predicted direction ${heldDirection(r.predicted?.direction ?? directionOf(backtest.predictedEffect), realised) ? "held" : "did not hold"}`
            : trained
              ? "not measured: the verdict could not read the targeted metric on both branches"
              : "known once the branch has trained and been judged"}
        </dd>
        <dt>rank</dt>
        <dd>
          {backtest.rank ?? "—"} {backtest.kept ? "(kept for training)" : "(not kept)"}
        </dd>
      </dl>
      <table className="kv compare-table" data-testid="backtest-report">
        <thead>
          <tr>
            <th>replayed on {r.rollouts ?? "?"} rollouts in {r.groups ?? "?"} groups</th>
            <th>before</th>
            <th>after</th>
            <th>change</th>
            <th><span className="sr-only">note</span></th>
          </tr>
        </thead>
        <tbody>
          <Row what="rollouts in the loss" before={r.kept?.before} after={r.kept?.after} />
          <Row what="dead groups" before={r.deadGroups?.before} after={r.deadGroups?.after} note={r.deadGroups ? `${r.deadGroups.rescued} rescued, ${r.deadGroups.killed} killed` : undefined} />
          <Row
            what="ordering violations"
            before={r.orderingViolations?.before}
            after={r.orderingViolations?.after}
            note={r.orderingViolations ? `${r.orderingViolations.introduced} introduced, in ${r.orderingViolations.groupsAffected} groups` : undefined}
          />
          {r.wronglyCut && (
            <tr>
              <th>successes wrongly cut</th>
              <td />
              <td>{r.wronglyCut.count}</td>
              <td />
              <td className="muted">{(100 * r.wronglyCut.rateOfSuccesses).toFixed(1)}% of successes</td>
            </tr>
          )}
        </tbody>
      </table>
      {advantages.length > 0 && (
        <>
          <h4>Mean advantage by label, before and after</h4>
          <AdvantageChart rows={advantages} />
        </>
      )}
    </>
  );
}
