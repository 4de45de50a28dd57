import { z } from "zod";
import type { Domain } from "../generated/prisma/client.ts";
import type { Tx } from "./events.ts";
import { json } from "./json.ts";

const interval = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]);

const powerSchema = z.array(
  z.object({ arm: z.string().min(1), n: z.number().int().positive(), promoted: z.number().int().nonnegative(), rate: z.number().min(0).max(1), interval, meanDelta: z.number() }),
);

const gateParametersSchema = z.object({
  alpha: z.number().gt(0).lt(1),
  replicates: z.number().int().positive(),
  candidates: z.number().int().positive(),
  carried: z.number().int().nonnegative(),
  steps: z.number().int().positive(),
  tasksPerStep: z.number().int().positive(),
});

export const gateCalibrationInputSchema = z.object({
  organizationId: z.string().min(1),
  runId: z.string().min(1).nullable(),
  domain: z.enum(["math", "code", "swe"]),
  configHash: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 hex content hash"),
  seed: z.number().int(),
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

/**
 * The calibration a run's page shows: the newest attached to the run, else the newest
 * organization-level one for the run's domain (calibrations made without --run).
 */
export async function gateCalibrationForRun(db: Tx, runId: string): Promise<{ record: GateCalibrationRecord; attached: boolean } | null> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { organizationId: true, domain: true } });
  const own = await db.gateCalibration.findFirst({ where: { runId }, orderBy: { createdAt: "desc" } });
  if (own) return { record: gateCalibrationOf(own), attached: true };
  const shared = await db.gateCalibration.findFirst({ where: { organizationId: run.organizationId, runId: null, domain: run.domain }, orderBy: { createdAt: "desc" } });
  return shared ? { record: gateCalibrationOf(shared), attached: false } : null;
}
