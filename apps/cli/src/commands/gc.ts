import { branchesToClean } from "@evotrainer/core";
import { allRunIds, createDatabase, loadRetentionState, recordRetention, type Database } from "@evotrainer/db";
import { weightsToDelete, type FoundWeights, type JobWeights, type WeightsElsewhere } from "@evotrainer/executors";
import { ensureLocalAdmin } from "@evotrainer/api";
import { loadCliEnv } from "../env.ts";
import { refuseWhileLoggedIn } from "../local-only.ts";
import { WeightsPlaces } from "../weights-places.ts";

const usage = "usage: evotrainer gc [runId …] [--yes]   (without --yes: list what would be deleted, with sizes)";

function size(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

interface RunWeights {
  runId: string;
  runName: string;
  found: FoundWeights[];
  elsewhere: WeightsElsewhere[];
}

async function weightsOfRun(db: Database, places: WeightsPlaces, runId: string): Promise<RunWeights> {
  const state = await loadRetentionState(db, runId);
  if (!state) throw new Error(`no run ${runId} (see \`evotrainer status\`)`);
  return { runId, runName: state.runName, ...(await weightsToDelete(state.jobs, branchesToClean(state.facts), (job) => places.open(job))) };
}

/** Where weights are, for a line: the path, prefixed by the node or pool unless they are on this machine. */
const placed = (w: JobWeights) => (w.where === "local" ? w.path : `${w.where}:${w.path}`);

/**
 * `evotrainer gc [runId …] [--yes]`: the retention policy (docs/retention.md) applied now, to the
 * given runs or every run, running ones included: the weights of branches neither promoted, best,
 * open nor needed as a parent, on this machine, on SSH nodes and on Kubernetes volumes mounted here.
 * A dry run lists them with their sizes; --yes deletes them, one line each.
 */
export async function gcCommand(args: string[]): Promise<number> {
  const unknown = args.filter((a) => a.startsWith("-") && a !== "--yes");
  if (unknown.length > 0) throw new Error(`${usage}\nunknown option ${unknown[0]}`);
  const confirmed = args.includes("--yes");
  refuseWhileLoggedIn("gc", "it deletes model weights where the control plane keeps them");
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const places = new WeightsPlaces(db, process.env);
  try {
    const given = args.filter((a) => !a.startsWith("-"));
    const runs: RunWeights[] = [];
    for (const runId of given.length > 0 ? given : await allRunIds(db)) runs.push(await weightsOfRun(db, places, runId));
    const all = runs.flatMap((run) => run.found.map(({ weights }) => ({ run, weights })));
    const total = all.reduce((sum, { weights }) => sum + weights.bytes, 0);
    for (const run of runs) {
      for (const w of run.elsewhere) console.log(`gc: run ${run.runId} v${w.branchVersion}: cannot reach the weights on ${w.where}: ${w.why}`);
    }
    if (all.length === 0) {
      console.log(`gc: nothing to delete in ${runs.length} run(s)`);
      return 0;
    }
    if (!confirmed) {
      for (const { run, weights } of all) console.log(`would delete  ${size(weights.bytes).padStart(10)}  run ${run.runName} (${run.runId}) v${weights.branchVersion}  ${placed(weights)}`);
      console.log(`gc: ${all.length} weight files or directories, ${size(total)} in all; run again with --yes to delete them`);
      return 0;
    }
    const actor = `user:${(await ensureLocalAdmin(db)).userId}`;
    let done = 0;
    let freed = 0;
    for (const run of runs) {
      const deleted: JobWeights[] = [];
      try {
        for (const { weights, remove } of run.found) {
          await remove();
          deleted.push(weights);
          done++;
          freed += weights.bytes;
          console.log(`[${done}/${all.length}] deleted ${size(weights.bytes)} (${size(freed)} of ${size(total)})  ${placed(weights)}`);
        }
      } finally {
        // A deletion that failed midway (a node that dropped) still records what went before it.
        if (deleted.length > 0 || run.elsewhere.length > 0) await recordRetention(db, { runId: run.runId, trigger: "gc", actor, deleted, elsewhere: run.elsewhere });
      }
    }
    console.log(`gc: deleted ${done} weight files or directories, ${size(freed)}`);
    return 0;
  } finally {
    await places.close();
    await db.$disconnect();
  }
}
