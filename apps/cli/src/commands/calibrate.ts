import { parseArgs } from "node:util";
import { contentHash, runConfigOf } from "@evotrainer/core";
import { createDatabase, recordGateCalibration, type GateCalibrationRecord } from "@evotrainer/db";
import { isGymDomain, NotAGymDomainError, runGateTrials } from "@evotrainer/gym";
import { readRunConfig } from "../config-files.ts";
import { loadCliEnv } from "../env.ts";
import { localOrganization } from "../local-organization.ts";
import { bar } from "../progress.ts";

const USAGE = "usage: evotrainer calibrate <config.yaml> --runs N [--power-runs N] [--seed S] [--run <runId>] [--json]";

const count = (value: string, flag: string, least: number): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < least) throw new Error(`${flag} must be a whole number ≥ ${least}, got "${value}"\n${USAGE}`);
  return n;
};

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The sentence the run page's card shows too. */
export function calibrationText(c: GateCalibrationRecord): string {
  const [lo, hi] = c.falsePromotion.interval;
  const power = c.power.map((p) => `${p.arm} ${pct(p.rate)} (95% CI ${pct(p.interval[0])}–${pct(p.interval[1])})${p.blockedBy.length ? `, blocked by ${p.blockedBy.join(", ")}` : ""}`).join("; ");
  const none = c.gateParameters.control === "none" ? " This config trains no control (search.control: none): its verdicts compare with the parent, and the rate above is what that costs." : "";
  return `This gate promotes a null intervention in ${pct(c.falsePromotion.rate)} of runs (95% CI ${pct(lo)}–${pct(hi)}), measured on ${c.falsePromotion.n} null runs of ${c.gateParameters.rounds} rounds of this ${c.domain} config; power in a first round: ${power}.${none}`;
}

/**
 * `evotrainer calibrate`: whole null runs of the config as the worker runs them (its recipe, trainer
 * settings, candidates, control replicates and alpha spending), and first rounds with known-real
 * interventions, stored as a GateCalibration under the config's hash (attached to --run, whose
 * config it must be).
 */
export async function calibrateCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      runs: { type: "string" },
      "power-runs": { type: "string", default: "20" },
      seed: { type: "string", default: "1" },
      run: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const file = positionals[0];
  if (!file || values.runs === undefined) throw new Error(USAGE);
  const runs = count(values.runs, "--runs", 1);
  const powerRuns = count(values["power-runs"], "--power-runs", 0);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be a whole number, got "${values.seed}"`);
  const config = readRunConfig(file);
  if (!isGymDomain(config.domain)) throw new NotAGymDomainError(config.domain);
  const configHash = contentHash(config);
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  try {
    let organizationId: string;
    if (values.run) {
      const run = await db.run.findUnique({ where: { id: values.run }, select: { settings: true, organizationId: true } });
      if (!run) throw new Error(`--run ${values.run}: no such run; \`evotrainer status\` shows the latest`);
      if (contentHash(runConfigOf(run)) !== configHash) throw new Error(`--run ${values.run} was not created from ${file} as it reads now (the configs differ): calibrate with that run's own config file`);
      organizationId = run.organizationId;
    } else organizationId = await localOrganization(db);
    const interactive = !values.json && process.stderr.isTTY;
    const result = runGateTrials(config, {
      runs,
      powerRuns,
      seed,
      onRun: (done, total) => {
        if (values.json) return;
        const line = `calibrating the gate of ${file}: ${bar(done, total)} run ${done}/${total}`;
        process.stderr.write(interactive ? `\r${line}${done === total ? "\n" : ""}` : `${line}\n`);
      },
    });
    if (result.base?.hacks && !values.json) {
      console.error(`note: the base recipe of ${file} hacks its reward (${result.base.failed.join("; ")}); measured as it is, since that is what the run trains`);
    }
    const record = await recordGateCalibration(db, {
      organizationId,
      runId: values.run ?? null,
      domain: result.domain,
      configHash,
      seed,
      trials: runs,
      falsePromotion: result.falsePromotion,
      power: result.power.map((p) => ({ arm: p.arm, n: p.n, promoted: p.promoted, rate: p.rate, interval: p.interval, meanDelta: p.meanDelta, blockedBy: p.blockedBy })),
      gateParameters: { ...result.gate, control: result.control, baseHacks: result.base?.hacks ?? false },
    });
    if (values.json) console.log(JSON.stringify(record, null, 2));
    else {
      console.log(calibrationText(record));
      console.log(`stored as gate calibration ${record.id}${record.runId ? ` on run ${record.runId}` : ""} for config ${record.configHash.slice(0, 12)}`);
    }
    return 0;
  } finally {
    await db.$disconnect();
  }
}
