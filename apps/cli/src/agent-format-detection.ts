import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { gunzipSync } from "node:zlib";
import type { AgentFormat } from "@evotrainer/adapters";
import { filesUnder } from "./trajectory-source.ts";

// The file names only one framework publishes: OpenHands' output.jsonl (and the output.critic_attempt_<n>.jsonl
// of its iterative mode), SWE-agent's <id>.traj, mini-swe-agent's <id>.traj.json. A plain .jsonl could
// be any of them, so it is told by its first line.
const LAYOUTS: readonly (readonly [AgentFormat, RegExp])[] = [
  ["openhands", /^output(\.critic_attempt_\d+)?\.jsonl(\.gz)?$/],
  ["swe-agent", /\.traj$/],
  ["mini-swe-agent", /\.traj\.json$/],
];

/** The format of one JSONL line by its keys: OpenHands' history of events, mini-swe-agent's trajectory_format, or chat messages. */
function formatOfLine(line: string): AgentFormat | undefined {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (Array.isArray(row)) return "openai-chat";
  if (typeof row !== "object" || row === null) return undefined;
  if ("history" in row && "instance_id" in row) return "openhands";
  if ("trajectory_format" in row || "traj" in row) return "mini-swe-agent";
  if (["messages", "conversation", "chat", "trajectory"].some((key) => key in row)) return "openai-chat";
  return undefined;
}

function firstLine(file: string): string {
  const bytes = readFileSync(file);
  const text = (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  return text.slice(0, text.indexOf("\n") >= 0 ? text.indexOf("\n") : text.length);
}

/**
 * The agent format of what `evotrainer import <path>` names without one: a directory by the files
 * a framework publishes (exactly one kind found), a file by its name or its first line. An error
 * says what was found and how to name the format.
 */
export function detectAgentFormat(path: string): AgentFormat {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new Error(`${path}: no such file or directory`);
  const name = (file: string) => basename(file);
  const byName = (file: string) => LAYOUTS.find(([, files]) => files.test(name(file)))?.[0];
  const help = "name the format: evotrainer import mini-swe-agent|swe-agent|openhands|openai-chat <file-or-dir>";
  if (stat.isFile()) {
    const format = byName(path) ?? (/\.jsonl?(\.gz)?$/.test(path) ? formatOfLine(firstLine(path)) : undefined);
    if (!format) throw new Error(`${path}: not a layout an agent framework publishes; ${help}`);
    return format;
  }
  const found = new Set<AgentFormat>();
  for (const file of filesUnder(path, (file) => byName(file) !== undefined)) found.add(byName(file)!);
  if (found.size === 1) return [...found][0]!;
  const what = found.size === 0 ? "no output.jsonl, .traj or .traj.json files" : `files of ${[...found].join(" and ")}`;
  throw new Error(`${path}: ${what} in this directory; ${help}`);
}
