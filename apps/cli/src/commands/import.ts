import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { RunConfig } from "@evotrainer/core";
import { detectAgentFormat } from "../agent-format-detection.ts";
import { isAgentFormat } from "../agent-import-options.ts";
import { IMPORT_HELP } from "../import-help.ts";
import { parseImportArgs } from "../import-options.ts";
import { ingestRunDir, resumable } from "../import-run-dir.ts";
import { alreadyPresentText } from "../already-present.ts";
import { endEmptyImport } from "../empty-import.ts";
import { openImportSink } from "../open-import-sink.ts";
import { readRunConfig } from "../config-files.ts";
import { readRunDir } from "../run-dir-source.ts";
import { importAgentCommand } from "./import-agent.ts";

/**
 * `evotrainer import verl|trl <dir>`: turns a run a team already has into a branch, so it can be
 * diagnosed and backtested: its rollouts labelled by the run's harness (bad lines quarantined and
 * listed at their file and line), its trainer metrics as series. The branch is a new base branch
 * of `--run`, or the base branch of a run created from `--config`; importing the same directory
 * again adds only what is new (see importTarget). Logged in to a server, the files are read here and
 * their rows stored there.
 */
export async function importCommand(args: string[]): Promise<number> {
  if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
    console.log(IMPORT_HELP);
    return 0;
  }
  if (isAgentFormat(args[0])) return importAgentCommand(args);
  // A path where the format goes: the agent framework that publishes that layout.
  const first = args[0]!;
  if (first !== "verl" && first !== "trl" && !first.startsWith("-") && existsSync(first)) {
    const format = detectAgentFormat(first);
    process.stderr.write(`import: ${first} is ${format}'s layout\n`);
    return importAgentCommand([format, ...args]);
  }
  const options = parseImportArgs(args);
  const dir = resolve(options.dir);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${options.dir}: no such directory`);
  let where: { runId: string } | { config: RunConfig };
  if ("runId" in options.where) where = { runId: options.where.runId };
  else {
    const config = readRunConfig(options.where.configFile);
    if (config.adapter !== options.adapter) {
      throw new Error(`${options.where.configFile}: the run config says adapter: ${config.adapter}; a run for an imported ${options.adapter} run needs adapter: ${options.adapter}`);
    }
    where = { config };
  }
  const say = (line: string) => process.stderr.write(`import ${options.adapter}: ${line}\n`);

  say(`reading ${dir}`);
  const source = await readRunDir(options.adapter, dir, { validationSplit: options.validationSplit, ...(options.rewardWeights ? { rewardWeights: options.rewardWeights } : {}) });
  for (const [role, path] of Object.entries(source.found)) say(`  ${role}: ${path}`);

  const sink = openImportSink();
  try {
    const target = await sink.target({ adapter: options.adapter, dir, into: where });
    say(`${target.created ? "new" : "existing"} branch v${target.branchVersion} (${target.branchId}) of run ${target.runId}, in ${sink.destination}`);

    const { rollouts, points } = await resumable(sink, target, () => ingestRunDir(sink, { source, target, dir, adapter: options.adapter }));
    say(`trainer metrics of ${source.metrics.length} steps: ${points.added} points added, ${points.changed} changed`);
    const empty = await endEmptyImport(sink, target, rollouts.added + rollouts.alreadyPresent + points.added, source.files.map((f) => f.source), `import ${options.adapter}`);
    if (empty !== null) return empty;

    const { quarantined, labels } = await sink.summary(target, source.files.map((f) => f.source));
    if (options.json) {
      console.log(JSON.stringify({
        adapter: options.adapter, dir, ...target, found: source.found, rollouts, metricPoints: { ...points, steps: source.metrics.length }, labels,
        quarantined: quarantined.map((q) => ({ file: q.source, line: q.lineNumber, reason: q.reason })),
      }, null, 2));
      return 0;
    }
    console.log(
      `import ${options.adapter}: ${rollouts.added} rollouts added, ${alreadyPresentText(rollouts.alreadyPresent, rollouts.resultsChanged)}, ${rollouts.quarantined} lines quarantined` +
        `${rollouts.repeatedRows > 0 ? `, ${rollouts.repeatedRows} repeated rows skipped` : ""}; ${points.added} metric points added, ${points.changed} changed`,
    );
    console.log(`branch v${target.branchVersion} ${target.branchId} of run ${target.runId}${target.created ? " (new, awaiting a decision)" : ""}`);
    console.log(`labels: ${Object.entries(labels).map(([l, n]) => `${l} ${n}`).join(", ") || "none"}`);
    if (quarantined.length > 0) console.log("quarantined:");
    for (const q of quarantined) console.log(`  ${q.source}:${q.lineNumber}: ${q.reason}`);
    console.log(`next: \`evotrainer report ${target.runId}\`; \`evotrainer decide ${target.branchId} approve\` to build on it`);
    return 0;
  } finally {
    await sink.close();
  }
}
