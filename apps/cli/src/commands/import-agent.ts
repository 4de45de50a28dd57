import { basename, dirname, relative, resolve } from "node:path";
import { setImmediate } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { openHandsAttempt, type SwebenchResult } from "@evotrainer/adapters";
import type { RunConfig } from "@evotrainer/core";
import { parseAgentImportArgs } from "../agent-import-options.ts";
import { alreadyPresentText } from "../already-present.ts";
import { readRunConfig } from "../config-files.ts";
import type { StagedSource } from "../import-sink.ts";
import { endEmptyImport } from "../empty-import.ts";
import { resumable } from "../import-run-dir.ts";
import { openImportSink } from "../open-import-sink.ts";
import { readAhead } from "../read-ahead.ts";
import { resultsDigest } from "../results-digest.ts";
import { openHandsAttemptsIn, type OpenHandsAttempts } from "../openhands-attempts.ts";
import { stagedRolloutLines } from "../staged-rollouts.ts";
import { readSwebenchReports, readTrajectoryFile, reportsBeside, trajectoryFiles } from "../trajectory-source.ts";

const DEFAULT_CONFIG = fileURLToPath(new URL("../../../../examples/imported-swe.yaml", import.meta.url));

/** The config given, else examples/imported-swe.yaml named after what is imported. */
function agentRunConfig(file: string | undefined, name: string): RunConfig {
  const config = readRunConfig(file ?? DEFAULT_CONFIG);
  if (!file) config.name = name;
  return config;
}

/** The report files named in the command's output: each one, or how many under the imported directory. */
const reportFilesText = (files: readonly string[], path: string) => (files.length <= 3 ? files.join(", ") : `${files.length} report files under ${path}`);

/** What the results joined: how many resolved, or why none joined. */
function joinedText(rollouts: { resolved: number; withResult: number }, reportFiles: number): string {
  if (rollouts.withResult > 0) return `${rollouts.resolved} of ${rollouts.withResult} with a result resolved`;
  if (reportFiles > 0) return "none of these trajectories' instances is in the results read";
  return "no SWE-bench results joined (--report)";
}

/**
 * `evotrainer import mini-swe-agent|swe-agent|openhands|openai-chat <path>`: agent trajectories a team already
 * has (a file, or a directory searched for the format's files) become a branch labelled by the run's
 * harness, through the same path as `import verl|trl`. With `--report`, SWE-bench's results join by
 * instance id (reward 1 when resolved, the FAIL_TO_PASS / PASS_TO_PASS counts). With neither `--run`
 * nor `--config`, the run is created from examples/imported-swe.yaml. Logged in to a server, the files
 * are read here and their rows stored there.
 */
export async function importAgentCommand(args: string[]): Promise<number> {
  const options = parseAgentImportArgs(args);
  const path = resolve(options.path);
  const files = trajectoryFiles(options.format, path);
  const report = options.report ? readSwebenchReports(resolve(options.report)) : reportsBeside(path);
  const reportFiles = new Set(report?.files);
  // OpenHands' iterative evaluation, per output directory: the attempt of each output.jsonl row and
  // the results that belong to each attempt.
  const attemptsByDir = new Map<string, OpenHandsAttempts | undefined>();
  const attemptsIn = (dir: string) => {
    if (!attemptsByDir.has(dir)) attemptsByDir.set(dir, options.format === "openhands" ? openHandsAttemptsIn(dir) : undefined);
    return attemptsByDir.get(dir);
  };
  const say = (line: string) => process.stderr.write(`import ${options.format}: ${line}\n`);

  const sink = openImportSink();
  try {
    const results = { resolved: 0, withResult: 0 };
    // Runs of the same task are one group, numbered in the order read (files by name, then lines).
    const samples = new Map<string, number>();
    async function* staged(): AsyncGenerator<StagedSource> {
      for (const [i, source] of files.entries()) {
        const attempts = attemptsIn(dirname(source));
        const attempt = openHandsAttempt(basename(source));
        let joined: ReadonlyMap<string, SwebenchResult> | undefined = report?.results;
        if (attempts && attempt !== undefined) {
          const own = attempts.resultsOf(attempt, joined);
          joined = own.results;
          if (own.file) reportFiles.add(own.file);
        }
        const file = readTrajectoryFile(options.format, source, joined, attempts?.attemptOf);
        if (attempts && attempt === undefined && attempts.files.every((f) => files.includes(f))) {
          // output.jsonl copies the attempts' lines: those read from their attempt file are not read twice.
          const copies = file.rows.filter(({ rollout }) => rollout.extra?.["attempt"] !== undefined).length;
          file.rows = file.rows.filter(({ rollout }) => rollout.extra?.["attempt"] === undefined);
          if (copies > 0) say(`${relative(path, source) || basename(source)}: ${copies} of its lines are copies of the attempts beside it (output.critic_attempt_<n>.jsonl), imported from there`);
        }
        for (const { rollout } of file.rows) {
          rollout.sample = samples.get(rollout.taskId) ?? 0;
          samples.set(rollout.taskId, rollout.sample + 1);
          if (typeof rollout.extra?.["resolved"] !== "boolean") continue;
          results.withResult += 1;
          if (rollout.extra["resolved"]) results.resolved += 1;
        }
        // The reader's reason says more than ingest's would (it would only see an empty line).
        const label = `import ${options.format}: [${i + 1}/${files.length}] ${relative(path, source) || basename(source)}`;
        const digest = resultsDigest(file.rows.map(({ rollout }) => rollout));
        yield { source, ...stagedRolloutLines({ ...file, unreadable: [] }), unreadable: file.unreadable, label, ...(digest ? { resultsDigest: digest } : {}) };
        // Lets the batch being stored meanwhile hear from Postgres between files.
        await setImmediate();
      }
    }
    const into = options.run ? { runId: options.run } : { config: agentRunConfig(options.config, `${options.format} ${basename(path)}`) };
    say(`reading ${files.length} file${files.length === 1 ? "" : "s"} under ${path}${report ? `, results of ${report.results.size} instances from ${reportFilesText(report.files, path)}` : ""}`);
    const creating = sink.target({ format: options.format, dir: path, into });
    // The first files are read and converted while Postgres creates the run and branch.
    const sources = readAhead(staged(), creating);
    const target = await creating;
    say(`${target.created ? "new" : "existing"} branch v${target.branchVersion} (${target.branchId}) of run ${target.runId}, in ${sink.destination}`);
    const stored = await resumable(sink, target, () => sink.rollouts(target, sources));
    const rollouts = { added: stored.inserted, alreadyPresent: stored.duplicates, quarantined: stored.quarantined, resultsChanged: stored.resultsChanged, ...results };
    const empty = await endEmptyImport(sink, target, stored.inserted + stored.duplicates, files, `import ${options.format}`);
    if (empty !== null) return empty;

    const { quarantined, labels } = await sink.summary(target, files);
    if (options.json) {
      console.log(JSON.stringify({
        format: options.format, path, files: files.length, ...target, rollouts, labels, reports: [...reportFiles],
        quarantined: quarantined.map((q) => ({ file: q.source, line: q.lineNumber, reason: q.reason })),
      }, null, 2));
      return 0;
    }
    console.log(
      `import ${options.format}: ${rollouts.added} rollouts added, ${alreadyPresentText(rollouts.alreadyPresent, rollouts.resultsChanged)}, ${rollouts.quarantined} quarantined; ` +
        joinedText(rollouts, reportFiles.size),
    );
    if (reportFiles.size > 0) console.log(`results from ${reportFilesText([...reportFiles], path)}`);
    console.log(`branch v${target.branchVersion} ${target.branchId} of run ${target.runId}${target.created ? " (new, awaiting a decision)" : ""}`);
    console.log(`labels: ${Object.entries(labels).map(([l, n]) => `${l} ${n}`).join(", ") || "none"}`);
    if (quarantined.length > 0) console.log("quarantined:");
    for (const q of quarantined) console.log(`  ${q.source}:${q.lineNumber}: ${q.reason}`);
    console.log(`next: \`evotrainer report ${target.runId}\`; the dashboard shows the branch's rollouts and labels`);
    return 0;
  } finally {
    await sink.close();
  }
}
