import type { MetricsLine } from "@evotrainer/contract";
import type { ImportSummary, ImportTarget } from "@evotrainer/db";
import type { TextSource } from "@evotrainer/db/ingest";
import type { RunConfig } from "@evotrainer/core";

/** Where an import lands: a new run from a config, a new base branch of a run, or an existing branch. */
export interface ImportRequest {
  format?: string;
  adapter?: RunConfig["adapter"];
  /** The file or directory read (absolute): the same one imported again resumes where it stopped. */
  dir: string;
  into: { runId: string } | { branchId: string } | { config: RunConfig; organizationId?: string };
}

/** One source file's rollouts, as contract JSONL lines, each row on its line in the source. */
export interface StagedSource extends TextSource {
  /** Prefix of the progress line. */
  label: string;
}

export interface SourcesIngested {
  inserted: number;
  duplicates: number;
  quarantined: number;
  /** Rows stored before whose result the lines read again changed (results joined on a re-import). */
  resultsChanged: number;
  /** Sources that changed since they were last read, read again from their start. */
  rewritten: string[];
}

/**
 * The database an import writes to: this machine's (beside the control plane), or the server the
 * CLI is logged in to, over HTTP. Either way labelling, quarantine and cursors are the same code.
 */
export interface ImportSink {
  /** For messages: "this machine's database" or the server's URL. */
  destination: string;
  target(request: ImportRequest): Promise<ImportTarget>;
  /**
   * Stores the sources' rows as they come: the iterator reads and converts the next files while
   * the ones before are stored.
   */
  rollouts(target: ImportTarget, sources: AsyncIterable<StagedSource> | Iterable<StagedSource>): Promise<SourcesIngested>;
  metrics(target: ImportTarget, steps: readonly MetricsLine[]): Promise<{ added: number; changed: number }>;
  summary(target: ImportTarget, sources: readonly string[]): Promise<ImportSummary>;
  /** Removes the run or branch a new import created when it stored nothing (discardEmptyImport); whether it did. */
  discard(target: ImportTarget): Promise<boolean>;
  close(): Promise<void>;
}
