import { z } from "zod";
import { readJsonFile, writeJsonFile } from "./json-file.ts";
import { paths } from "./paths.ts";

export const heartbeatPhaseSchema = z.enum(["setup", "rollout", "update", "eval", "checkpoint", "teardown"]);
export type HeartbeatPhase = z.infer<typeof heartbeatPhaseSchema>;

/**
 * `heartbeat.json`, rewritten by the trainer while it works. The monitor treats a stale `time` as a
 * hung or lost job, so trainers refresh it during long phases too, not only between steps.
 */
export const heartbeatSchema = z.object({
  step: z.number().int().nonnegative(),
  time: z.iso.datetime({ offset: true }),
  // When this attempt of the job started, on the same clock as \`time\`: the job's own clock, which
  // GPU-seconds are charged by (time − startedAt). Without it the job is charged its process's own times, which the executor reports.
  startedAt: z.iso.datetime({ offset: true }).optional(),
  phase: heartbeatPhaseSchema,
  // Fraction of the job done, for progress bars and time-left estimates.
  progress: z.number().min(0).max(1),
  message: z.string().optional(),
});
export type Heartbeat = z.infer<typeof heartbeatSchema>;

const what = "evo.job/v1 heartbeat";

export function writeHeartbeat(outputDir: string, heartbeat: Heartbeat): Promise<Heartbeat> {
  return writeJsonFile(paths(outputDir).heartbeat, heartbeatSchema, heartbeat, what);
}

/** `null` until the trainer's first beat. */
export function readHeartbeat(outputDir: string): Promise<Heartbeat | null> {
  return readJsonFile(paths(outputDir).heartbeat, heartbeatSchema, what);
}
