import { parseArgs } from "node:util";
import { contentHash } from "@evotrainer/core";
import { createDatabase, recordGateCalibration, type GateCalibrationRecord } from "@evotrainer/db";
import { isGymDomain, NotAGymDomainError, runGateTrials } from "@evotrainer/gym";
import { readRunConfig } from "../config-files.ts";
import { loadCliEnv } from "../env.ts";
import { localOrganization } from "../local-organization.ts";
import { bar } from "../progress.ts";

const USAGE = "usage: evotrainer calibrate <config.yaml> --trials N [--seed S] [--run <runId>] [--steps N] [--tasks-per-step N] [--json]";

const positiveInt = (value: string, flag: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a whole number ≥ 1, got "${value}"\n${USAGE}`);
  return n;
};

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The sentence the run page's card shows too. */
export function calibrationText(c: GateCalibrationRecord): string {
  const [lo, hi] = c.falsePromotion.interval;
  const power = c.power.map((p) => `${p.arm} ${pct(p.rate)} (95% CI ${pct(p.interval[0])}–${pct(p.interval[1])})`).join("; ");
  return `This gate promotes a null intervention ${pct(c.falsePromotion.rate)} of the time (95% CI ${pct(lo)}–${pct(hi)}), measured on ${c.trials} trials of ${c.domain}; power: ${power}`;
}

/**
 * `evotrainer calibrate`: null and known-real interventions on the config's gym domain, through the
 * real gate, stored as a GateCalibration (attached to --run, else organization-level by config hash).
 */
export async function calibrateCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      trials: { type: "string" },
      seed: { type: "string", default: "1" },
      run: { type: "string" },
      steps: { type: "string" },
      "tasks-per-step": { type: "string", default: "16" },
      json: { type: "boolean", default: false },
    },
  });
  const file = positionals[0];
  if (!file || values.trials === undefined) throw new Error(USAGE);
  const trials = positiveInt(values.trials, "--trials");
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be a whole number, got "${values.seed}"`);
  const config = readRunConfig(file);
  if (!isGymDomain(config.domain)) throw new NotAGymDomainError(config.domain);
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  try {
    let organizationId: string;
    if (values.run) {
      const run = await db.run.findUnique({ where: { id: values.run }, select: { domain: true, organizationId: true } });
      if (!run) throw new Error(`--run ${values.run}: no such run; \`evotrainer status\` shows the latest`);
      if (run.domain !== config.domain) throw new Error(`--run ${values.run} is a ${run.domain} run but ${file} is ${config.domain}: calibrate with that run's config`);
      organizationId = run.organizationId;
    } else organizationId = await localOrganization(db);
    const interactive = !values.json && process.stderr.isTTY;
    const result = runGateTrials(config, {
      trials,
      seed,
      ...(values.steps ? { steps: positiveInt(values.steps, "--steps") } : {}),
      tasksPerStep: positiveInt(values["tasks-per-step"], "--tasks-per-step"),
      replicates: config.search.controlReplicates,
      carried: 2,
      onRound: (done, total) => {
        if (values.json) return;
        const line = `calibrating the gate on ${config.domain}: ${bar(done, total)} round ${done}/${total}`;
        process.stderr.write(interactive ? `\r${line}${done === total ? "\n" : ""}` : `${line}\n`);
      },
    });
    const record = await recordGateCalibration(db, {
      organizationId,
      runId: values.run ?? null,
      domain: result.domain,
      configHash: contentHash(config),
      seed,
      trials,
      falsePromotion: result.falsePromotion,
      power: result.summary
        .filter((s) => s.kind === "real")
        .map((s) => ({ arm: s.arm, n: s.n, promoted: s.scorePassed, rate: s.rate, interval: s.interval, meanDelta: s.meanDelta })),
      gateParameters: result.gate,
    });
    if (values.json) console.log(JSON.stringify(record, null, 2));
    else {
      console.log(calibrationText(record));
      console.log(`stored as gate calibration ${record.id}${record.runId ? ` on run ${record.runId}` : ` (organization-level, config ${record.configHash.slice(0, 12)})`}`);
    }
    return 0;
  } finally {
    await db.$disconnect();
  }
}
