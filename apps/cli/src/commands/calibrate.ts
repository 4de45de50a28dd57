import { parseArgs } from "node:util";
import { contentHash, runConfigOf } from "@evotrainer/core";
import { createDatabase, recordGateCalibration, type GateCalibrationInput, type GateCalibrationRecord } from "@evotrainer/db";
import { isGymDomain, NotAGymDomainError, runGateTrials, type BaseState, type GateTrialsResult } from "@evotrainer/gym";
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

/**
 * Rounds the gate did not judge: the worker hands them to a person, who is outside the measurement.
 * The stored record has no field for them (packages/db's schema), so the CLI keeps them beside it.
 */
export interface RoundsJudged {
  /** Null rounds the gate judged itself, and those it sent to a person. */
  judged: number;
  toPerson: number;
  /** Why it sent them, in the gate's own words. */
  reasons: string[];
  /** Per power arm, first rounds sent to a person. */
  powerToPerson: Record<string, number>;
}

export const roundsJudgedOf = (r: GateTrialsResult): RoundsJudged => ({
  judged: r.judgedRounds,
  toPerson: r.toPerson,
  reasons: r.toPersonReasons,
  powerToPerson: Object.fromEntries(r.power.map((p) => [p.arm, p.toPerson])),
});

type Power = GateCalibrationRecord["power"][number];

// An arm whose every first round went to a person was not judged: its 0 promotions measure nothing.
const armText = (p: Power, toPerson: number) =>
  toPerson === p.n
    ? `${p.arm} not judged (its ${p.n} first round(s) went to a person)`
    : `${p.arm} ${pct(p.rate)} (95% CI ${pct(p.interval[0])}–${pct(p.interval[1])})${p.blockedBy.length ? `, blocked by ${p.blockedBy.join(", ")}` : ""}${toPerson ? `, ${toPerson} of ${p.n} rounds went to a person` : ""}`;

// No power rows: --power-runs 0 measured none, which is not a power of 0.
const powerText = (c: GateCalibrationRecord, rounds?: RoundsJudged) =>
  c.power.length === 0 ? "power: not measured (--power-runs 0)" : `power in a first round: ${c.power.map((p) => armText(p, rounds?.powerToPerson[p.arm] ?? 0)).join("; ")}`;

// With no round judged, the 0 false promotions are the person's rounds, not the gate's guarantee.
function falsePromotionText(c: GateCalibrationRecord, rounds?: RoundsJudged): string {
  const measured = `${c.falsePromotion.n} null runs of ${c.gateParameters.rounds} rounds of this ${c.domain} config`;
  if (rounds && rounds.judged === 0) return `No round was judged: every round went to a person (${rounds.reasons.join("; ")}), in ${measured}, so they measured no false-promotion rate`;
  const [lo, hi] = c.falsePromotion.interval;
  const sent = rounds?.toPerson ? ` (${rounds.toPerson} of their ${rounds.judged + rounds.toPerson} rounds went to a person: ${rounds.reasons.join("; ")})` : "";
  return `This gate promotes a null intervention in ${pct(c.falsePromotion.rate)} of runs (95% CI ${pct(lo)}–${pct(hi)}), measured on ${measured}${sent}`;
}

/** The sentence the run page's card shows too; `rounds`, which the record lacks, only the CLI has. */
export function calibrationText(c: GateCalibrationRecord, rounds?: RoundsJudged): string {
  const none = c.gateParameters.control === "none" ? " This config trains no control (search.control: none): its verdicts compare with the parent, and the rate above is what that costs." : "";
  return `${falsePromotionText(c, rounds)}; ${powerText(c, rounds)}.${none}`;
}

/** The base's validity-labelled rollouts, as the note on a hacking base names them. */
export const baseHackText = (base: BaseState): string =>
  base.validity.map((v) => `${v.label} on ${v.train} of ${base.rollouts.train} training and ${v.promotion} of ${base.rollouts.promotion} promotion rollouts`).join("; ");

/** The GateCalibration row of a trial result: baseHacks from the base's own validity labels, no power rows when none was measured. */
export function calibrationInput(result: GateTrialsResult, at: Pick<GateCalibrationInput, "organizationId" | "runId" | "configHash" | "seed" | "trials">): GateCalibrationInput {
  return {
    ...at,
    domain: result.domain,
    falsePromotion: result.falsePromotion,
    power: result.power.map((p) => ({ arm: p.arm, n: p.n, promoted: p.promoted, rate: p.rate, interval: p.interval, meanDelta: p.meanDelta, blockedBy: p.blockedBy })),
    gateParameters: { ...result.gate, control: result.control, baseHacks: result.base?.hacks ?? false },
  };
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
      console.error(`note: the base recipe of ${file} hacks its reward (${baseHackText(result.base)}); measured as it is, since that is what the run trains`);
    }
    const record = await recordGateCalibration(db, calibrationInput(result, { organizationId, runId: values.run ?? null, configHash, seed, trials: runs }));
    const rounds = roundsJudgedOf(result);
    if (values.json) console.log(JSON.stringify({ ...record, rounds }, null, 2));
    else {
      console.log(calibrationText(record, rounds));
      console.log(`stored as gate calibration ${record.id}${record.runId ? ` on run ${record.runId}` : ""} for config ${record.configHash.slice(0, 12)}`);
    }
    return 0;
  } finally {
    await db.$disconnect();
  }
}
