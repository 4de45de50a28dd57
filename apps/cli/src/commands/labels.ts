import { readFileSync, writeFileSync } from "node:fs";
import { truthLineSchema, type RouterOutputs, type TruthLine } from "@evotrainer/api";
import { onLocalApi, type LocalApi } from "../cli-caller.ts";
import { remoteCredentials } from "../remote/credentials.ts";
import { onServer, type RemoteApi } from "../remote/remote-api.ts";

const usage = `usage: evotrainer labels export <runId> [--out <file.jsonl>]
       evotrainer labels import <file.jsonl> [--run <runId>]
       evotrainer labels quality <runId> [--json]
       evotrainer labels unexplained <branchId> [--only-separating] [--json]`;

type Quality = RouterOutputs["labelReview"]["quality"];
type Unexplained = RouterOutputs["unexplained"]["clusters"];

/** The same procedure on a team's server (after `evotrainer login`) or in-process on this machine's database. */
async function call<T>(what: string, remote: (api: RemoteApi) => Promise<T>, local: (api: LocalApi) => Promise<T>): Promise<T> {
  const credentials = remoteCredentials();
  return credentials ? onServer(credentials, remote) : onLocalApi(what, local);
}

function optionValue(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (!value || value.startsWith("--")) throw new Error(`${name} needs a value\n${usage}`);
  return value;
}

/** Reads a truth file: one JSON object per line; a bad line is named with its number and field. */
export function readTruthFile(path: string): TruthLine[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const out: TruthLine[] = [];
  for (const [i, text] of lines.entries()) {
    if (text.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${path} line ${i + 1} is not JSON`);
    }
    const line = truthLineSchema.safeParse(parsed);
    if (!line.success) {
      const issue = line.error.issues[0]!;
      throw new Error(`${path} line ${i + 1}: ${issue.path.join(".") || "the line"}: ${issue.message}`);
    }
    out.push(line.data);
  }
  if (out.length === 0) throw new Error(`${path} holds no reviews`);
  return out;
}

const two = (x: number) => x.toFixed(2);

/** The quality table as text: one line per detector. */
export function qualityLines(quality: Quality): string[] {
  if (!quality.harness) return ["this run has no harness version"];
  return [
    `harness v${quality.harness.version}`,
    ...quality.detectors.map((q) => {
      const precision = q.precision === null ? "not reviewed" : `precision ${two(q.precision)} [${two(q.precisionInterval![0])}, ${two(q.precisionInterval![1])}] · ${q.reviewed} reviewed`;
      const recall = q.recall === null ? "recall unknown" : `recall ${two(q.recall.recall)} [${two(q.recall.interval[0])}, ${two(q.recall.interval[1])}] from ${q.recallReviewed} unflagged`;
      // Misses from a truth file or added by hand were not drawn at random: kept and named, not estimated from.
      const outside = q.missedOutsideSample > 0 ? ` · ${q.missedOutsideSample} missed outside the queue's sample (imported or added by hand; no sampling weight, so not in recall)` : "";
      const i = q.informativeness;
      const separates = i.separates === "none" ? "does not separate failure from success" : `marks ${i.separates}`;
      return `${q.label}${q.detector.validity ? " (validity)" : ""} · ${precision} · ${recall}${outside} · flags ${two(i.failedRate)} of failed vs ${two(i.succeededRate)} of successful (Δ ${two(i.difference)} [${two(i.interval[0])}, ${two(i.interval[1])}]): ${separates}`;
    }),
    ...quality.unmeasured.map((u) => `${u.label} · ${u.reviews} reviews kept (${u.missed} missed), not measured: no detector of harness v${quality.harness!.version} has this label`),
  ];
}

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The branch's unexplained failures as text: a summary line, then one line per cluster with its examples. */
export function unexplainedLines(branchId: string, found: Unexplained): string[] {
  const head = [
    `branch ${branchId} · harness v${found.harnessVersion} · ${found.rollouts} rollouts, ${found.failures} failed, ${found.unexplained} with no explaining label` +
      (found.failures > 0 ? ` (${percent(found.unexplained / found.failures)} of failures)` : "") +
      ` in ${found.clusters.length} cluster${found.clusters.length === 1 ? "" : "s"}`,
    ...(found.ignoredLabels.length > 0 ? [`labels not counted as explaining (they do not separate failures from successes): ${found.ignoredLabels.join(", ")}`] : []),
    ...(found.labelledNow.length > 0 ? [`labelled now by detectors added after ingest: ${found.labelledNow.join(", ")}`] : []),
  ];
  return [
    ...head,
    ...found.clusters.flatMap((c) => [`${c.count} · ${percent(c.shareOfFailures)} of failures · ${c.key}`, `    e.g. ${c.examples.map((e) => e.uid).join(", ")}`]),
  ];
}

/** `evotrainer labels export|import|quality|unexplained`: reviews as a truth file, the detectors' quality from them, and the failures no label explains. */
export async function labelsCommand(args: string[]): Promise<number> {
  const [sub, target] = args;
  if (!target || target.startsWith("--")) throw new Error(usage);
  if (sub === "export") {
    const lines = await call("export", (api) => api.labelReview.export.query({ runId: target }), (api) => api.labelReview.export({ runId: target }));
    const text = lines.map((l) => JSON.stringify(l)).join("\n") + (lines.length ? "\n" : "");
    const out = optionValue(args, "--out");
    if (out) {
      writeFileSync(out, text);
      console.error(`evotrainer: ${lines.length} reviews of run ${target} written to ${out}`);
    } else process.stdout.write(text);
    return 0;
  }
  if (sub === "import") {
    const lines = readTruthFile(target);
    const runs = [...new Set(lines.map((l) => l.run).filter((r) => r !== undefined))];
    const runId = optionValue(args, "--run") ?? (runs.length === 1 ? runs[0] : undefined);
    if (!runId) throw new Error(`${target} names ${runs.length === 0 ? "no run" : `${runs.length} runs`}: say which with --run <runId>`);
    const input = { runId, lines };
    const done = await call("import", (api) => api.labelReview.import.mutate(input), (api) => api.labelReview.import(input));
    console.log(`evotrainer: ${done.imported} reviews imported into run ${runId}`);
    return 0;
  }
  if (sub === "quality") {
    const quality = await call("quality", (api) => api.labelReview.quality.query({ runId: target }), (api) => api.labelReview.quality({ runId: target }));
    console.log(args.includes("--json") ? JSON.stringify(quality, null, 2) : qualityLines(quality).join("\n"));
    return 0;
  }
  if (sub === "unexplained") {
    const input = { branchId: target, onlySeparatingLabels: args.includes("--only-separating") };
    const found = await call("unexplained", (api) => api.unexplained.clusters.query(input), (api) => api.unexplained.clusters(input));
    console.log(args.includes("--json") ? JSON.stringify(found, null, 2) : unexplainedLines(target, found).join("\n"));
    return 0;
  }
  throw new Error(usage);
}
