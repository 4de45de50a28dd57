import { posix } from "node:path";
import { z } from "zod";

/** Rollout directories: training rollouts, and evaluation rollouts of both locked splits together. */
export const rolloutDirSchema = z.enum(["train", "eval"]);
export type RolloutDir = z.infer<typeof rolloutDirSchema>;

export interface ContractPaths {
  outputDir: string;
  job: string;
  metrics: string;
  heartbeat: string;
  status: string;
  checkpointsDir: string;
  latestCheckpoint: string;
  evalDir: string;
  rolloutsDir(split: RolloutDir): string;
  rolloutsFile(split: RolloutDir, step: number): string;
  evalFile(step: number): string;
}

/** What a path inside an output dir holds, as `parseContractPath` recognises it. */
export type ContractFile =
  | { kind: "job" | "metrics" | "heartbeat" | "status" | "checkpoint" }
  | { kind: "rollouts"; split: RolloutDir; step: number }
  | { kind: "eval"; step: number };

function checkStep(step: number): number {
  if (!Number.isSafeInteger(step) || step < 0) {
    throw new RangeError(`a contract step is a non-negative integer, got ${step}`);
  }
  return step;
}

/**
 * Every path of evo.job/v1 under `outputDir`. POSIX joins, because the same paths are used on remote
 * nodes (ssh, Kubernetes volumes) as locally; `paths("")` gives the paths relative to the output dir.
 */
export function paths(outputDir: string): ContractPaths {
  const at = (...parts: string[]) => posix.join(outputDir, ...parts);
  return {
    outputDir,
    job: at("job.json"),
    metrics: at("metrics.jsonl"),
    heartbeat: at("heartbeat.json"),
    status: at("status.json"),
    checkpointsDir: at("checkpoints"),
    latestCheckpoint: at("checkpoints", "latest.json"),
    evalDir: at("eval"),
    rolloutsDir: (split) => at("rollouts", rolloutDirSchema.parse(split)),
    rolloutsFile: (split, step) => at("rollouts", rolloutDirSchema.parse(split), `step_${checkStep(step)}.jsonl`),
    evalFile: (step) => at("eval", `step_${checkStep(step)}.json`),
  };
}

const fixedFiles = new Map<string, ContractFile>([
  ["job.json", { kind: "job" }],
  ["metrics.jsonl", { kind: "metrics" }],
  ["heartbeat.json", { kind: "heartbeat" }],
  ["status.json", { kind: "status" }],
  ["checkpoints/latest.json", { kind: "checkpoint" }],
]);
const rolloutsPattern = /^rollouts\/(train|eval)\/step_(\d+)\.jsonl$/;
const evalPattern = /^eval\/step_(\d+)\.json$/;

/**
 * Names the contract file at `path` (relative to the output dir, or absolute when `outputDir` is
 * given), or `null` for anything else: temporary files, trainer extras, checkpoint payloads.
 * Executors use it to decide what a file they found (over SFTP, in a volume) is.
 */
export function parseContractPath(path: string, outputDir?: string): ContractFile | null {
  let rel = path.replaceAll("\\", "/");
  if (outputDir !== undefined) rel = posix.relative(outputDir.replaceAll("\\", "/"), rel);
  rel = posix.normalize(rel);
  const fixed = fixedFiles.get(rel);
  if (fixed) return { ...fixed };
  const rollouts = rolloutsPattern.exec(rel);
  if (rollouts) {
    const step = Number(rollouts[2]);
    return Number.isSafeInteger(step) ? { kind: "rollouts", split: rollouts[1] as RolloutDir, step } : null;
  }
  const evaluation = evalPattern.exec(rel);
  if (evaluation) {
    const step = Number(evaluation[1]);
    return Number.isSafeInteger(step) ? { kind: "eval", step } : null;
  }
  return null;
}
