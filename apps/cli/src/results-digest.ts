import { createHash } from "node:crypto";
import type { Rollout } from "@evotrainer/contract";
import { carriesResult } from "@evotrainer/db/ingest";

/**
 * A digest of the results a file's rows carry (reward, components, test counts), for its cursor
 * (TextSource.resultsDigest): a report that changes them makes the file read again. Undefined where
 * no row carries a result, so a file imported without results keeps the cursor it had.
 */
export function resultsDigest(rollouts: readonly Rollout[]): string | undefined {
  if (!rollouts.some(carriesResult)) return undefined;
  const hash = createHash("sha256");
  for (const r of rollouts) hash.update(`${JSON.stringify([r.uid, r.reward, r.rewardComponents, r.testResults ?? null])}\n`);
  return hash.digest("hex");
}
