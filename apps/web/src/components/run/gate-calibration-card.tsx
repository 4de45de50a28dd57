"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { QueryState } from "../query-state";

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const GYM_DOMAINS = ["math", "code", "swe"];

const NO_CONTROL_WARNING =
  "This run trains no control (search.control: none): each verdict compares a candidate with its parent, so the extra training steps alone can pass for an effect.";

/** What the gate's promotions are worth for this run's config: its measured per-run false-promotion rate and power, or how to measure them. */
export function GateCalibrationCard({ runId, domain }: { runId: string; domain: string }) {
  const trpc = useTRPC();
  const calibration = useQuery(trpc.run.gateCalibration.queryOptions({ runId }));
  return (
    <section data-testid="gate-calibration">
      <h2>Gate calibration</h2>
      <QueryState isPending={calibration.isPending} error={calibration.error}>
        {() => {
          const found = calibration.data!;
          if (!found.calibrated) {
            return (
              <>
                {found.control === "none" && <p className="warning" data-testid="gate-calibration-no-control">{NO_CONTROL_WARNING}</p>}
                <p className="muted">
                  {GYM_DOMAINS.includes(domain)
                    ? "Not calibrated for this config: how often this run's gate promotes an intervention that does nothing has not been measured with its settings. Measure it (null runs of this config on the built-in gym, as the worker runs them) with:"
                    : `Not calibrated for this config: calibration trains on the built-in gym (math, code, swe), not on ${domain}.`}{" "}
                  {GYM_DOMAINS.includes(domain) && (
                    <code data-testid="gate-calibration-command">evotrainer calibrate {found.configPath ?? "<this run's config.yaml>"} --runs 200 --run {runId}</code>
                  )}
                </p>
              </>
            );
          }
          const c = found.record;
          const g = c.gateParameters;
          return (
            <>
              {g.control === "none" && <p className="warning" data-testid="gate-calibration-no-control">{NO_CONTROL_WARNING}</p>}
              <p data-testid="gate-calibration-summary">
                This gate promotes a null intervention in {pct(c.falsePromotion.rate)} of runs (95% CI {pct(c.falsePromotion.interval[0])}–{pct(c.falsePromotion.interval[1])}), measured on {c.falsePromotion.n} null runs of {g.rounds} rounds of this config on{" "}
                {new Date(c.createdAt).toISOString().slice(0, 10)}; power in a first round:{" "}
                {c.power.length === 0
                  ? "not measured (calibrated with --power-runs 0)"
                  : c.power.map((p) => `${p.arm} ${pct(p.rate)} (95% CI ${pct(p.interval[0])}–${pct(p.interval[1])})${p.blockedBy.length ? `, blocked by ${p.blockedBy.join(", ")}` : ""}`).join("; ")}
                .
              </p>
              {g.baseHacks && <p className="warning">The config&apos;s base recipe hacks its reward (its rollouts carry validity labels); it was measured as it is, since that is what the run trains.</p>}
              <p className="muted legend">
                {c.falsePromotion.k} of {c.falsePromotion.n} null runs promoted a null · α {g.alpha} per run, spent over {g.rounds} rounds · {g.newParentReplicates} control replicates for a new parent, then {g.replicates} · Holm over K = {g.candidates} · min effect {g.minEffect} · seed {c.seed}
                {found.attached ? " · measured for this run" : ` · organization-level, config ${c.configHash.slice(0, 12)}`}
              </p>
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
