import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { AGENT_FORMATS, agentRolloutOf, openHandsAttempt, openHandsEvalResults, parseSwebenchReport, parseSwebenchV1Log, shortHash, shortHashOfPieces, SWEBENCH_V1_LOG, swebenchV1Result, TrajectoryShapeError, type AgentFormat, type SwebenchResult } from "@evotrainer/adapters";
import type { Rollout } from "@evotrainer/contract";
import { MAX_LINE_BYTES, mib, readFileLines, tooLongReason } from "./file-lines.ts";
import { trajectoryJsonPieces } from "./rollout-json.ts";
import { withoutTrailingCommas } from "./trailing-commas.ts";
import type { RunDirFile } from "./run-dir-source.ts";

const RAW_CHARS = 2_000;
const REPORT_FILE = "report.json";
// OpenHands' evaluation writes the results of <name>.jsonl beside it as <name>.swebench_eval.jsonl.
const OPENHANDS_EVAL = /\.swebench_eval\.jsonl$/;
// The evaluation of one attempt's file evaluates that attempt alone: it is joined to that attempt's
// rows (see openhands-attempts.ts), never to the run's by instance id.
const ATTEMPT_EVAL = /^output\.critic_attempt_(\d+)\.swebench_eval\.jsonl$/;
// SWE-bench v1's harness writes one `<instance_id>.<model>.eval.log` per instance, the only results many
// published runs keep (`logs/` beside `trajs/`).
const isReportFile = (name: string) => name === REPORT_FILE || SWEBENCH_V1_LOG.test(name) || (OPENHANDS_EVAL.test(name) && !ATTEMPT_EVAL.test(name));

/** SWE-bench's results by instance id, and the report files they were read from. */
export interface SwebenchReports {
  results: Map<string, SwebenchResult>;
  files: string[];
}

/** The files under `dir` (at any depth) whose name passes `test`, in path order. */
export function filesUnder(dir: string, test: (name: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && test(entry.name)) found.push(full);
    }
  };
  walk(dir);
  return found;
}

/** The files of a format under `path` (itself when it is a file), in name order. */
export function trajectoryFiles(format: AgentFormat, path: string): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new Error(`${path}: no such file or directory`);
  if (stat.isFile()) return [path];
  const found = filesUnder(path, (name) => AGENT_FORMATS[format].files.test(name));
  if (found.length === 0) throw new Error(`${path}: no ${format} trajectories (files matching ${AGENT_FORMATS[format].files}) in this directory`);
  return found;
}

/**
 * A trajectory's uid: its task and a hash of its messages, and the attempt that produced it where an
 * OpenHands iterative evaluation numbers them (`<task>/attempt-2@<hash>`). Where it was read (file,
 * line) plays no part, so a file rewritten, reordered or concatenated with another imports each
 * trajectory once, while two attempts at one task stay two rows even when their messages are the
 * same. Results joined from a report are not hashed: importing again with `--report` finds the same rows.
 */
export const trajectoryUid = (rollout: Pick<Rollout, "taskId" | "trajectory">, attempt?: number): string =>
  `${rollout.taskId}${attempt === undefined ? "" : `/attempt-${attempt}`}@${rollout.trajectory ? shortHashOfPieces(trajectoryJsonPieces(rollout.trajectory)) : shortHash(JSON.stringify(rollout.trajectory))}`;

/** A whole file's text; null where it is, or decompresses to, more than one string may hold. */
function readText(file: string): string | null {
  try {
    if (!file.endsWith(".gz")) return statSync(file).size > MAX_LINE_BYTES ? null : readFileSync(file, "utf8");
    return gunzipSync(readFileSync(file), { maxOutputLength: MAX_LINE_BYTES }).toString("utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return null;
    throw error;
  }
}

/** A report or log read whole: one that is too large names its file and what to do. */
function readWholeText(file: string): string {
  const text = readText(file);
  if (text === null) throw new Error(`${file}: larger than ${mib(MAX_LINE_BYTES)}, more than a report is read whole: split it`);
  return text;
}

/** A JSONL trajectory file's lines (the last one with or without its "\n"), and why those not read were not. */
function jsonlLines(file: string): { lines: string[]; skipped: { lineNumber: number; reason: string }[] } {
  if (file.endsWith(".gz")) {
    const text = readText(file);
    if (text !== null) return { lines: text.split("\n"), skipped: [] };
    return { lines: [], skipped: [{ lineNumber: 1, reason: `the file decompresses to more than ${mib(MAX_LINE_BYTES)}: gunzip it, and import the .jsonl` }] };
  }
  const read = readFileLines(file);
  const tooLong = read.restBytes > MAX_LINE_BYTES ? [...read.tooLong, { lineNumber: read.lines.length + 1, bytes: read.restBytes }] : read.tooLong;
  return { lines: [...read.lines, read.rest], skipped: tooLong.map(({ lineNumber, bytes }) => ({ lineNumber, reason: tooLongReason(bytes, MAX_LINE_BYTES) })) };
}

export function readSwebenchReport(file: string): Map<string, SwebenchResult> {
  if (OPENHANDS_EVAL.test(file)) return openHandsEvalResults(readWholeText(file), file);
  if (SWEBENCH_V1_LOG.test(basename(file))) {
    const log = parseSwebenchV1Log(readWholeText(file), file, basename(file));
    return new Map([[log.instanceId, swebenchV1Result(log)]]);
  }
  const text = readWholeText(file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    try {
      json = JSON.parse(withoutTrailingCommas(text));
    } catch {
      throw new Error(`${file}: not a JSON report (${(error as Error).message})`);
    }
  }
  return parseSwebenchReport(json, file, basename(dirname(file)));
}

function readReportFiles(files: string[]): SwebenchReports {
  const results = new Map<string, SwebenchResult>();
  const used: string[] = [];
  for (const file of files) {
    const read = readSwebenchReport(file);
    for (const [id, result] of read) results.set(id, result);
    if (read.size > 0) used.push(file);
  }
  return { results, files: used };
}

/**
 * SWE-bench's results by instance id, from a report file or from every `report.json`,
 * `*.swebench_eval.jsonl` and `*.eval.log` under a directory: SWE-bench writes one report per instance
 * (`logs/run_evaluation/<run>/<model>/<id>/report.json`), as mini-swe-agent's runs do beside their
 * trajectories (`logs/<id>/report.json`); SWE-bench v1 wrote one log per instance
 * (`logs/<id>.<model>.eval.log`); OpenHands puts the harness's summary `report.json`, or its
 * remote evaluation's `output.swebench_eval.jsonl`, beside `output.jsonl`.
 */
export function readSwebenchReports(path: string): SwebenchReports {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new Error(`${path}: no such file or directory`);
  return readReportFiles(stat.isFile() ? [path] : filesUnder(path, isReportFile));
}

/**
 * The results beside imported trajectories: the report files under an imported directory; for one
 * file, those in its own directory (OpenHands' report.json or output.swebench_eval.jsonl beside
 * output.jsonl), for mini-swe-agent's `trajs/<id>/<id>.traj.json` its run's `logs/<id>/report.json`,
 * and for a SWE-agent `trajs/<id>.traj` its run's SWE-bench v1 logs `logs/<id>.<model>.eval.log`.
 */
export function reportsBeside(path: string): SwebenchReports | undefined {
  const beside = (): string[] => {
    const dir = dirname(path);
    const files = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && isReportFile(e.name)).map((e) => join(dir, e.name)).sort();
    const instance = basename(dir);
    const runLog = join(dir, "../../logs", instance, REPORT_FILE);
    if (basename(path) === `${instance}.traj.json` && basename(dirname(dir)) === "trajs" && existsSync(runLog)) files.push(runLog);
    const v1Logs = join(dir, "../logs");
    if (basename(dir) === "trajs" && path.endsWith(".traj") && existsSync(v1Logs)) {
      const id = basename(path, ".traj");
      files.push(...readdirSync(v1Logs).filter((name) => SWEBENCH_V1_LOG.exec(name)?.[1] === id).sort().map((name) => join(v1Logs, name)));
    }
    return files;
  };
  const reports = statSync(path).isDirectory() ? readSwebenchReports(path) : readReportFiles(beside());
  return reports.results.size > 0 ? reports : undefined;
}

/**
 * One file of trajectories as rollouts at their lines: a JSONL file (optionally gzipped) holds one
 * per line; any other file is one trajectory on line 1 (or, for a JSON list of chat rows, one per
 * row numbered from 1). A line that is not JSON, or whose shape the format does not know, is
 * unreadable with its reason.
 */
export function readTrajectoryFile(
  format: AgentFormat,
  file: string,
  report?: ReadonlyMap<string, SwebenchResult>,
  attemptOf?: (uid: string) => number | undefined,
): RunDirFile {
  const fileStem = basename(file).replace(/\.gz$/, "").replace(/\.(traj\.json|traj|jsonl|json)$/, "");
  // An OpenHands attempt file numbers its rows; output.jsonl's rows are copies of attempts (attemptOf).
  const fileAttempt = format === "openhands" ? openHandsAttempt(basename(file)) : undefined;
  const out: RunDirFile = { source: file, rows: [], unreadable: [] };
  const take = (raw: string, lineNumber: number, parsed?: unknown) => {
    try {
      const json = parsed ?? JSON.parse(raw);
      const rollout = agentRolloutOf(format, json, { where: `${file}:${lineNumber}`, fileStem, ...(report ? { report } : {}) });
      const attempt = fileAttempt ?? attemptOf?.(trajectoryUid(rollout));
      const extra = attempt === undefined ? rollout.extra : { ...rollout.extra, attempt };
      out.rows.push({ lineNumber, rollout: { ...rollout, ...(extra ? { extra } : {}), uid: trajectoryUid(rollout, attempt) } });
    } catch (error) {
      if (!(error instanceof SyntaxError || error instanceof TrajectoryShapeError)) throw error;
      const reason = error instanceof SyntaxError ? `invalid JSON: ${error.message}` : error.message.replace(`${file}:${lineNumber}`, "").replace(/^[\s:]+/, "");
      out.unreadable.push({ lineNumber, reason: `${format}: ${reason}`, raw: raw.slice(0, RAW_CHARS) });
    }
  };
  const notRead = (lineNumber: number, reason: string) => out.unreadable.push({ lineNumber, reason: `${format}: ${reason}`, raw: "" });
  if (/\.jsonl(\.gz)?$/.test(file)) {
    const { lines, skipped } = jsonlLines(file);
    lines.forEach((line, i) => {
      if (line.trim() !== "") take(line, i + 1);
    });
    for (const line of skipped) notRead(line.lineNumber, line.reason);
    return out;
  }
  const text = readText(file);
  if (text === null) {
    notRead(1, file.endsWith(".gz") ? `the file decompresses to more than ${mib(MAX_LINE_BYTES)}: gunzip it first` : tooLongReason(statSync(file).size, MAX_LINE_BYTES));
    return out;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    take(text, 1);
    return out;
  }
  const rowsOfChats = format === "openai-chat" && Array.isArray(json) && json.every((row) => typeof row === "object" && row !== null && !("role" in row));
  if (rowsOfChats) (json as unknown[]).forEach((row, i) => take(JSON.stringify(row), i + 1, row));
  else take(text, 1, json);
  return out;
}
