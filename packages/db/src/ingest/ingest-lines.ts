import { setImmediate } from "node:timers/promises";
import type pg from "pg";
import { parseJsonlLine, rolloutSchema, validJsonValue, type JsonlCursor, type JsonlLine, type Rollout } from "@evotrainer/contract";
import { isServiceUnavailable, type Label } from "@evotrainer/core";
import { pendingLabels, writeBatchLabels, type BatchLabeler, type PendingLabel } from "./batch-labels.ts";
import { copyRolloutLines, rolloutCsvLine, rolloutCsvParts, rolloutIds, type RolloutJsonFields, type RolloutOwner } from "./copy-rollouts.ts";
import { CsvLines, JsonText } from "./csv.ts";
import { saveCursors, storedCursor, type StoredCursor } from "./file-cursor.ts";
import { sameJson } from "./same-json.ts";
import { mayHoldUnstorable, storableRollout } from "./sanitize-text.ts";
import { addToStepAggregates } from "./step-aggregates.ts";
import { updateStoredResults } from "./stored-results.ts";
import { claimSteps, clearRolloutSteps, newestAttempts, ownedLine, type AttemptedLine } from "./step-attempts.ts";

/** Where a batch's rows go and how they are labelled, whichever sources its lines come from. */
export interface IngestInput {
  owner: RolloutOwner & { jobId: string };
  /** Whether to keep the text of a rollout no detector flagged (eval, a sample of the rest); flagged ones always keep it. */
  keepText: (rollout: Rollout) => boolean;
  /** Detectors to run on the batch before it is stored; their labels and LabelStat counts commit with it. */
  labeler?: BatchLabeler;
}

export interface IngestLinesInput extends IngestInput {
  /** The name the cursor and quarantined lines are recorded under. */
  source: string;
}

/** A line that is kept out of the rollouts, with why, where a person can find it. */
export interface BadLine {
  lineNumber: number;
  reason: string;
  raw: string;
}

/**
 * A line to ingest; `value`, when given, is what its text is the JSON of, validated instead of parsing
 * the text again; `escapes`, when given, whether `mayHoldUnstorable` holds for the text, so that it is
 * not read; `json`, when given, the JSON of the value's largest fields as pieces of its text, stored as
 * they are when validation leaves those fields as they were.
 */
export type IngestLine = Pick<JsonlLine, "lineNumber" | "text" | "invalidUtf8"> & {
  value?: unknown;
  escapes?: boolean;
  json?: { trajectory?: readonly string[]; extra?: readonly string[] };
};

export interface LinesBatch {
  lines: readonly IngestLine[];
  /** Lines the reader could not turn into rollouts at all, quarantined with the reader's reason. */
  unreadable?: readonly BadLine[];
  /**
   * Where the source's cursor stood when the batch was read. Given by a reader that is not the only
   * one (the CLI over HTTP): the batch is refused if the cursor moved since. A batch from the start
   * (a rewritten file read again) is always taken; rows already stored are skipped by their uid.
   */
  from?: JsonlCursor;
  /** The cursor after the batch, with the hash of the source's first bytes read so far. */
  next: StoredCursor;
}

/** One source's lines in a batch that may hold several sources' (many small files, one transaction). */
export interface SourceLines extends LinesBatch {
  source: string;
}

export interface IngestBatch {
  inserted: { id: bigint; uid: string; rollout: Rollout }[];
  quarantined: number;
}

export type LinesOutcome =
  /** resultsChanged: rows stored before whose result the batch's lines changed (updateStoredResults). */
  | { outcome: "stored"; inserted: number; duplicates: number; quarantined: number; resultsChanged: number }
  | { outcome: "cursor_moved"; source: string; cursor: StoredCursor };

interface Line {
  /** Index of its source in the batch's parts. */
  part: number;
  lineNumber: number;
  text: string;
  rollout: Rollout;
  /** The JSON of its fields that is stored as the line gave it. */
  json?: RolloutJsonFields;
}

const attempted = ({ rollout }: Line): AttemptedLine => ({ stream: rollout.split, step: rollout.step, attempt: rollout.attempt });

const RAW_SNIPPET_CHARS = 2_000;

/**
 * Stores one batch of a source's JSONL lines in one transaction: its rows, their labels and LabelStat
 * counts, the steps' aggregates (MetricPoints), its quarantined lines and the advanced cursor. A crash
 * anywhere resumes exactly at the batch's first line, a re-read line is never inserted twice, and
 * nothing derived can fall behind the rows. A line the schema or the database refuses is quarantined
 * with its line number and never costs the others. `onBatch` runs inside the transaction.
 */
export async function ingestLines(
  pool: pg.Pool,
  input: IngestLinesInput,
  batch: LinesBatch,
  onBatch?: (client: pg.PoolClient, batch: IngestBatch) => Promise<void>,
): Promise<LinesOutcome> {
  return storeLines(pool, input, await prepareLines(input, { ...batch, source: input.source }), onBatch);
}

/**
 * A batch parsed, labelled and encoded for COPY, ready to store: the CPU half of ingest, which runs
 * while the batch before it is stored, so that storing it is the database's work alone.
 */
export interface PreparedLines {
  parts: readonly SourceLines[];
  good: Line[];
  /** The good lines' rows for the COPY into "Rollout", line for line. */
  csv: CsvLines;
  /** Per part, its lines kept out of the rollouts. */
  bad: BadLine[][];
  labels: PendingLabel[];
}

/**
 * Lines are parsed, labelled and encoded this many at a time, yielding to the event loop between
 * slices: the batch being stored meanwhile gets each answer from Postgres when it comes, not after
 * the whole batch's CPU work, so Postgres never waits on this thread.
 */
const PREPARE_SLICE = 256;

export async function prepareLines(input: IngestInput, ...parts: SourceLines[]): Promise<PreparedLines> {
  let good: Line[] = [];
  const bad: BadLine[][] = parts.map((p) => [...(p.unreadable ?? [])]);
  const labelled: Promise<Label[]>[] = [];
  const lines = parts.flatMap((p, part) => p.lines.map((line) => ({ part, line })));
  for (let start = 0; start < lines.length; start += PREPARE_SLICE) {
    const slice: Rollout[] = [];
    for (const { part, line } of lines.slice(start, start + PREPARE_SLICE)) {
      const parsed = line.value === undefined ? parseJsonlLine(line.text, rolloutSchema) : validJsonValue(line.value, rolloutSchema);
      if (parsed.ok) {
        const rollout = storableRollout(parsed.value, line.escapes ?? mayHoldUnstorable(line.text), line.invalidUtf8);
        const json = rollout === parsed.value ? writtenJson(line, rollout) : undefined;
        good.push({ part, lineNumber: line.lineNumber, text: line.text, rollout, ...(json ? { json } : {}) });
        slice.push(rollout);
      } else bad[part]!.push({ lineNumber: line.lineNumber, reason: parsed.reason, raw: line.text.slice(0, RAW_SNIPPET_CHARS) });
    }
    // Not awaited here: a labeller in worker threads works on this slice while the next is parsed
    // (a failure is reported by the Promise.all below, not as an unhandled rejection meanwhile).
    if (input.labeler && slice.length > 0) {
      const labels = Promise.resolve(input.labeler.label(slice));
      labels.catch(() => {});
      labelled.push(labels);
    }
    await setImmediate();
  }
  let labelsFound = input.labeler ? (await Promise.all(labelled)).flat() : [];
  // A file that holds two attempts' lines of a step (a retry appending behind a crashed attempt): the
  // older lines are dropped when stored, and labels know rollouts by uid alone, so the batch is
  // labelled again without them (rare: only such a file pays twice).
  const newest = newestAttempts(good.map(attempted));
  if (good.some((line) => !ownedLine(newest, attempted(line)))) {
    good = good.filter((line) => ownedLine(newest, attempted(line)));
    labelsFound = input.labeler ? await input.labeler.label(good.map((g) => g.rollout)) : [];
  }
  const labels = input.labeler ? pendingLabels(input.owner.branchId, input.labeler, labelsFound, new Map(good.map((g) => [g.rollout.uid, g.rollout]))) : [];
  // A flagged rollout keeps its text whatever keepText says: a person reviewing the label needs it.
  const flagged = new Set(labels.map((l) => l.rolloutUid));
  // A row is about as long as its JSON line.
  const csv = CsvLines.withCapacity(Math.ceil(good.reduce((sum, g) => sum + g.text.length, 0) * 1.1));
  for (let start = 0; start < good.length; start += PREPARE_SLICE) {
    for (const { rollout, json } of good.slice(start, start + PREPARE_SLICE)) {
      const keepText = flagged.has(rollout.uid) || input.keepText(rollout);
      if (json) csv.pushParts(rolloutCsvParts(input.owner, rollout, keepText, json));
      else csv.push(rolloutCsvLine(input.owner, rollout, keepText));
    }
    await setImmediate();
  }
  return { parts, good, csv, bad, labels };
}

/** The line's JSON of the rollout's fields that validation left as the line gave them. */
function writtenJson(line: IngestLine, rollout: Rollout): RolloutJsonFields | undefined {
  if (!line.json || line.value === undefined) return undefined;
  const given = line.value as Partial<Rollout>;
  const json: RolloutJsonFields = {};
  if (line.json.trajectory && sameJson(given.trajectory, rollout.trajectory)) json.trajectory = new JsonText(line.json.trajectory);
  if (line.json.extra && sameJson(given.extra, rollout.extra)) json.extra = new JsonText(line.json.extra);
  return json.trajectory || json.extra ? json : undefined;
}

/** The database half: one transaction with the rows, labels, aggregates, quarantined lines and cursors. */
export async function storeLines(
  pool: pg.Pool,
  input: IngestInput,
  prepared: PreparedLines,
  onBatch?: (client: pg.PoolClient, batch: IngestBatch) => Promise<void>,
): Promise<LinesOutcome> {
  const { parts, good, csv, labels } = prepared;
  const bad = prepared.bad.map((lines) => [...lines]);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    for (const part of parts) {
      if (!part.from || part.from.byteOffset === 0) continue;
      const current = await storedCursor(client, input.owner.jobId, part.source, true);
      if (current.byteOffset !== part.from.byteOffset || current.lineNumber !== part.from.lineNumber) {
        await client.query("ROLLBACK");
        return { outcome: "cursor_moved", source: part.source, cursor: current };
      }
    }
    // A retry's first lines of a step replace the step's rows of the attempt before; a crashed
    // attempt's lines read after that are dropped (see claimSteps).
    const owners = await claimSteps(client, input.owner.jobId, good.map(attempted), (steps) => clearRolloutSteps(client, input.owner.branchId, steps));
    const kept = good.flatMap((line, index) => (ownedLine(owners, attempted(line)) ? [index] : []));
    const keptCsv = kept.length === good.length ? csv : csv.subset(kept);
    const keptLines = kept.length === good.length ? good : kept.map((index) => good[index]!);
    const { inserted, refused } = await copyOrQuarantine(client, keptLines, keptCsv);
    if (keptCsv !== csv) keptCsv.release();
    // Lines whose rows were stored before: a result they carry now (joined on a re-import) is written onto those rows.
    const written = new Set<Line>([...inserted.map((row) => row.line), ...refused.map((row) => row.line)]);
    const resultsChanged = await updateStoredResults(client, input.owner.branchId, keptLines.flatMap((line) => (written.has(line) ? [] : [line.rollout])));
    for (const line of refused) bad[line.part]!.push(line.bad);
    for (const [index, part] of parts.entries()) await quarantineLines(client, input.owner, part.source, bad[index]!);
    const quarantined = bad.reduce((sum, lines) => sum + lines.length, 0);
    const stored = { inserted: inserted.map(({ id, line }) => ({ id, uid: line.rollout.uid, rollout: line.rollout })), quarantined };
    if (input.labeler) await writeBatchLabels(client, input.owner.branchId, input.labeler, stored.inserted, labels);
    await addToStepAggregates(client, input.owner.branchId, inserted.map((row) => row.id));
    await onBatch?.(client, stored);
    await saveCursors(client, input.owner.jobId, parts.map((part) => ({ source: part.source, cursor: part.next })));
    await client.query("COMMIT");
    csv.release();
    return { outcome: "stored", inserted: inserted.length, duplicates: good.length - refused.length - inserted.length, quarantined, resultsChanged };
  } catch (error) {
    // A connection the server ended cannot roll back (the server already did) and must not be reused.
    if (isServiceUnavailable(error)) broken = error as Error;
    else await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Keeps lines out of the rollouts at their source and line, with why; a line quarantined before stays as it was. */
export async function quarantineLines(client: Pick<pg.PoolClient, "query">, owner: RolloutOwner & { jobId: string }, source: string, bad: readonly BadLine[]): Promise<void> {
  if (bad.length === 0) return;
  await client.query(
    `INSERT INTO "QuarantinedLine" (id, "runId", "branchId", "jobId", source, "lineNumber", reason, raw)
     SELECT gen_random_uuid()::text, $1, $2, $3, $4, q."lineNumber", q.reason, q.raw
       FROM jsonb_to_recordset($5::jsonb) AS q("lineNumber" int, reason text, raw text)
     ON CONFLICT ("jobId", source, "lineNumber") DO NOTHING`,
    [owner.runId, owner.branchId, owner.jobId, source, JSON.stringify(bad)],
  );
}

// SQLSTATE classes 22 (data exception) and 23 (integrity constraint): the row, not the connection, is at fault.
function refusedByDatabase(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

/**
 * Copies the batch in one statement; if the database refuses a row, finds which ones row by row (each
 * under a savepoint) and returns them to be quarantined, so one bad row never costs the others.
 */
async function copyOrQuarantine(client: pg.PoolClient, lines: readonly Line[], csv: CsvLines): Promise<{ inserted: { id: bigint; line: Line }[]; refused: { line: Line; part: number; bad: BadLine }[] }> {
  const ids = await rolloutIds(client, lines.length);
  const lineOf = new Map(ids.map((id, index) => [id, lines[index]!]));
  await client.query("SAVEPOINT batch");
  try {
    const inserted = await copyRolloutLines(client, csv, ids);
    return { inserted: inserted.map((id) => ({ id, line: lineOf.get(id)! })), refused: [] };
  } catch (error) {
    if (!refusedByDatabase(error)) throw error;
    await client.query("ROLLBACK TO SAVEPOINT batch");
  }
  const inserted: { id: bigint; line: Line }[] = [];
  const refused: { line: Line; part: number; bad: BadLine }[] = [];
  for (const [index, line] of lines.entries()) {
    await client.query("SAVEPOINT row");
    try {
      for (const id of await copyRolloutLines(client, csv.line(index), [ids[index]!])) inserted.push({ id, line });
      await client.query("RELEASE SAVEPOINT row");
    } catch (error) {
      if (!refusedByDatabase(error)) throw error;
      await client.query("ROLLBACK TO SAVEPOINT row");
      refused.push({ line, part: line.part, bad: { lineNumber: line.lineNumber, reason: `the database refused it: ${error.message}`, raw: line.text.slice(0, RAW_SNIPPET_CHARS) } });
    }
  }
  return { inserted, refused };
}
