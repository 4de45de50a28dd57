"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { QueryState } from "../query-state";

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const GYM_DOMAINS = ["math", "code", "swe"];

/** What the gate's promotions are worth: its measured false-promotion rate and power, or how to measure them. */
export function GateCalibrationCard({ runId, domain }: { runId: string; domain: string }) {
  const trpc = useTRPC();
  const calibration = useQuery(trpc.run.gateCalibration.queryOptions({ runId }));
  return (
    <section data-testid="gate-calibration">
      <h2>Gate calibration</h2>
      <QueryState isPending={calibration.isPending} error={calibration.error}>
        {() => {
          const found = calibration.data;
          if (!found) {
            return (
              <p className="muted">
                {GYM_DOMAINS.includes(domain)
                  ? `No calibration yet: how often this gate promotes an intervention that does nothing has not been measured on ${domain}. Measure it (null and known-real interventions on the built-in gym, through this gate) with:`
                  : `No calibration: calibration trains on the built-in gym (math, code, swe), not on ${domain}. Calibrate the same gate settings on a gym config with:`}{" "}
                <code>evotrainer calibrate {GYM_DOMAINS.includes(domain) ? "<this run's config.yaml>" : "examples/gym-math.yaml"} --trials 100 --run {runId}</code>
              </p>
            );
          }
          const c = found.record;
          return (
            <>
              <p data-testid="gate-calibration-summary">
                This gate promotes a null intervention {pct(c.falsePromotion.rate)} of the time (95% CI {pct(c.falsePromotion.interval[0])}–{pct(c.falsePromotion.interval[1])}), measured on {c.trials} trials of {c.domain} on{" "}
                {new Date(c.createdAt).toISOString().slice(0, 10)}; power:{" "}
                {c.power.map((p) => `${p.arm} ${pct(p.rate)} (95% CI ${pct(p.interval[0])}–${pct(p.interval[1])})`).join("; ")}.
              </p>
              <p className="muted legend">
                {c.falsePromotion.k} of {c.falsePromotion.n} null candidates promoted · α {c.gateParameters.alpha}, {c.gateParameters.replicates} control replicates, Holm over K = {c.gateParameters.candidates} · seed {c.seed}
                {found.attached ? " · measured for this run" : ` · organization-level, config ${c.configHash.slice(0, 12)}`}
              </p>
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
