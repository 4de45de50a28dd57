import type { Job } from "@evotrainer/contract";

/**
 * Renders what to run for a trainer (gym, verl, trl) from a job of the contract, and maps the
 * trainer's own outputs (verl's `{step}.jsonl` dumps, TRL's completion parquet files) to evo.job/v1.
 */
export interface TrainerAdapter {
  name: "gym" | "verl" | "trl";
  /** The command, environment and files an executor needs to launch this job. */
  render(job: Job): { command: string[]; env: Record<string, string>; files: Record<string, string> };
}
