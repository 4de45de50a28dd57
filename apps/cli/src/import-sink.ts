import type { MetricsLine } from "@evotrainer/contract";
import type { ImportSummary, ImportTarget } from "@evotrainer/db";
import type { BadLine } from "@evotrainer/db/ingest";
import type { RunConfig } from "@evotrainer/core";

/** Where an import lands: a new run from a config, a new base branch of a run, or an existing branch. */
export interface ImportRequest {
  format?: string;
  adapter?: RunConfig["adapter"];
  /** The file or directory read (absolute): the same one imported again resumes where it stopped. */
  dir: string;
  into: { runId: string } | { branchId: string } | { config: RunConfig; organizationId?: string };
}

/** One source file's rollouts, as contract JSONL with each row on its line in the source. */
export interface StagedSource {
  /** What its cursor and quarantined lines are recorded and listed under. */
  source: string;
  text: string;
  /** Lines the reader could not read, quarantined with its reason (their lines in `text` are empty). */
  unreadable: readonly BadLine[];
  /** Prefix of the progress line. */
  label: string;
}

export interface SourceIngested {
  inserted: number;
  duplicates: number;
  quarantined: number;
  /** The source changed since it was last read, and was read again from its start. */
  rewritten: boolean;
}

/**
 * The database an import writes to: this machine's (beside the control plane), or the server the
 * CLI is logged in to, over HTTP. Either way labelling, quarantine and cursors are the same code.
 */
export interface ImportSink {
  /** For messages: "this machine's database" or the server's URL. */
  destination: string;
  target(request: ImportRequest): Promise<ImportTarget>;
  rollouts(target: ImportTarget, staged: StagedSource): Promise<SourceIngested>;
  metrics(target: ImportTarget, steps: readonly MetricsLine[]): Promise<{ added: number; changed: number }>;
  summary(target: ImportTarget, sources: readonly string[]): Promise<ImportSummary>;
  close(): Promise<void>;
}
