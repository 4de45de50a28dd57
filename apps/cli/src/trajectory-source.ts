import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { AGENT_FORMATS, agentRolloutOf, parseSwebenchReport, TrajectoryShapeError, type AgentFormat, type SwebenchResult } from "@evotrainer/adapters";
import type { RunDirFile } from "./run-dir-source.ts";

const RAW_CHARS = 2_000;

/** The files of a format under `path` (itself when it is a file), in name order. */
export function trajectoryFiles(format: AgentFormat, path: string): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new Error(`${path}: no such file or directory`);
  if (stat.isFile()) return [path];
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && AGENT_FORMATS[format].files.test(entry.name)) found.push(full);
    }
  };
  walk(path);
  if (found.length === 0) throw new Error(`${path}: no ${format} trajectories (files matching ${AGENT_FORMATS[format].files}) in this directory`);
  return found;
}

function readText(file: string): string {
  const bytes = readFileSync(file);
  return (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}

/** A SWE-bench report file by instance id (`--report`). */
export function readSwebenchReport(file: string): Map<string, SwebenchResult> {
  let json: unknown;
  try {
    json = JSON.parse(readText(file));
  } catch (error) {
    throw new Error(`${file}: not a JSON report (${(error as Error).message})`);
  }
  return parseSwebenchReport(json, file);
}

/**
 * One file of trajectories as rollouts at their lines: a JSONL file (optionally gzipped) holds one
 * per line; any other file is one trajectory on line 1 (or, for a JSON list of chat rows, one per
 * row numbered from 1). A line that is not JSON, or whose shape the format does not know, is
 * unreadable with its reason. `name` is the file's name within what was imported, for stable uids.
 */
export function readTrajectoryFile(format: AgentFormat, file: string, name: string, report?: ReadonlyMap<string, SwebenchResult>): RunDirFile {
  const text = readText(file);
  const fileStem = basename(file).replace(/\.gz$/, "").replace(/\.(traj\.json|traj|jsonl|json)$/, "");
  const out: RunDirFile = { source: file, rows: [], unreadable: [] };
  const take = (raw: string, lineNumber: number, parsed?: unknown) => {
    try {
      const json = parsed ?? JSON.parse(raw);
      const rollout = agentRolloutOf(format, json, { where: `${file}:${lineNumber}`, fileStem, ...(report ? { report } : {}) });
      // Two runs of one task (two files, or two lines) are two rollouts: the uid names where each was read.
      out.rows.push({ lineNumber, rollout: { ...rollout, uid: `${rollout.taskId}@${name}:${lineNumber}` } });
    } catch (error) {
      if (!(error instanceof SyntaxError || error instanceof TrajectoryShapeError)) throw error;
      const reason = error instanceof SyntaxError ? `invalid JSON: ${error.message}` : error.message.replace(`${file}:${lineNumber}`, "").replace(/^[\s:]+/, "");
      out.unreadable.push({ lineNumber, reason: `${format}: ${reason}`, raw: raw.slice(0, RAW_CHARS) });
    }
  };
  if (/\.jsonl(\.gz)?$/.test(file)) {
    text.split("\n").forEach((line, i) => {
      if (line.trim() !== "") take(line, i + 1);
    });
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
