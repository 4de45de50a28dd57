import { contentHash, runConfigOf } from "@evotrainer/core";
import { z } from "zod";
import type { Domain } from "../generated/prisma/client.ts";
import type { Tx } from "./events.ts";
import { json } from "./json.ts";

const interval = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]);

const powerSchema = z.array(
  z.object({
    arm: z.string().min(1),
    n: z.number().int().nonnegative(),
    promoted: z.number().int().nonnegative(),
    rate: z.number().min(0).max(1),
    interval,
    meanDelta: z.number(),
    // The checks besides the score that kept the intervention out (a validity limit on a hacking base).
    blockedBy: z.array(z.string()).default([]),
  }),
);

// The run's gate as calibrated: the settings that decide it, read from the config calibrated.
const gateParametersSchema = z.object({
  alpha: z.number().gt(0).lt(1),
  control: z.enum(["sibling", "none"]),
  rounds: z.number().int().positive(),
  candidates: z.number().int().positive(),
  replicates: z.number().int().positive(),
  newParentReplicates: z.number().int().positive(),
  minEffect: z.number().min(0),
  minNoiseDf: z.number().int().positive(),
  steps: z.number().int().positive(),
  // The config's base branch fails its validity limits: measured anyway, and said so.
  baseHacks: z.boolean(),
});

const gateCalibrationInputSchema = z.object({
  organizationId: z.string().min(1),
  runId: z.string().min(1).nullable(),
  domain: z.enum(["math", "code", "swe"]),
  configHash: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 hex content hash"),
  seed: z.number().int(),
  // Independent null runs: the unit the false-promotion interval counts.
  trials: z.number().int().positive(),
  falsePromotion: z.object({ k: z.number().int().nonnegative(), n: z.number().int().positive(), rate: z.number().min(0).max(1), interval }),
  power: powerSchema,
  gateParameters: gateParametersSchema,
});

export type GateCalibrationInput = z.input<typeof gateCalibrationInputSchema>;

export interface GateCalibrationRecord {
  id: string;
  runId: string | null;
  domain: Domain;
  configHash: string;
  seed: number;
  trials: number;
  falsePromotion: { k: number; n: number; rate: number; interval: [number, number] };
  power: z.infer<typeof powerSchema>;
  gateParameters: z.infer<typeof gateParametersSchema>;
  createdAt: Date;
}

/** Stores one `evotrainer calibrate` result; the only writer of GateCalibration rows. */
export async function recordGateCalibration(tx: Tx, input: GateCalibrationInput): Promise<GateCalibrationRecord> {
  const c = gateCalibrationInputSchema.parse(input);
  const row = await tx.gateCalibration.create({
    data: {
      organizationId: c.organizationId,
      runId: c.runId,
      domain: c.domain,
      configHash: c.configHash,
      seed: c.seed,
      trials: c.trials,
      nullCandidates: c.falsePromotion.n,
      falsePromotions: c.falsePromotion.k,
      falsePromotionRate: c.falsePromotion.rate,
      falsePromotionLow: c.falsePromotion.interval[0],
      falsePromotionHigh: c.falsePromotion.interval[1],
      power: json(c.power),
      gateParameters: json(c.gateParameters),
    },
  });
  return gateCalibrationOf(row);
}

type GateCalibrationRow = Awaited<ReturnType<Tx["gateCalibration"]["create"]>>;

/** A stored row back as the record the API and CLI show. */
export function gateCalibrationOf(row: GateCalibrationRow): GateCalibrationRecord {
  return {
    id: row.id,
    runId: row.runId,
    domain: row.domain,
    configHash: row.configHash,
    seed: row.seed,
    trials: row.trials,
    falsePromotion: { k: row.falsePromotions, n: row.nullCandidates, rate: row.falsePromotionRate, interval: [row.falsePromotionLow, row.falsePromotionHigh] },
    power: powerSchema.parse(row.power),
    gateParameters: gateParametersSchema.parse(row.gateParameters),
    createdAt: row.createdAt,
  };
}

/** What a run's page shows of calibration: a measurement of this very config, or how to make one. */
export type RunCalibration =
  | { calibrated: true; record: GateCalibrationRecord; attached: boolean }
  | { calibrated: false; configHash: string; configPath: string | null; control: "sibling" | "none" };

/**
 * The calibration a run's page shows: the newest attached to the run, else the newest
 * organization-level one, in either case only of the run's own config (its content hash). A
 * calibration of another config measured another gate, whatever the domain.
 */
export async function gateCalibrationForRun(db: Tx, runId: string): Promise<RunCalibration> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { organizationId: true, settings: true } });
  const config = runConfigOf(run);
  const configHash = contentHash(config);
  const rows = await db.gateCalibration.findMany({
    where: { organizationId: run.organizationId, configHash, OR: [{ runId }, { runId: null }] },
    orderBy: { createdAt: "desc" },
  });
  const row = rows.find((r) => r.runId === runId) ?? rows[0];
  // Rows of an earlier calibration (per candidate, other settings) do not describe this gate.
  const current = row && gateParametersSchema.safeParse(row.gateParameters).success ? row : undefined;
  if (current) return { calibrated: true, record: gateCalibrationOf(current), attached: current.runId === runId };
  const created = await db.event.findFirst({ where: { runId, type: "run_created" }, select: { payload: true } });
  const path = z.object({ configPath: z.string().min(1) }).safeParse(created?.payload);
  return { calibrated: false, configHash, configPath: path.success ? path.data.configPath : null, control: config.search.control };
}
