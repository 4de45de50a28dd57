import { createHash } from "node:crypto";
import type { Rollout } from "@evotrainer/contract";

/**
 * One line of the reward wrapper's side file (`reward_wrapper.py`): the response's key, its ground
 * truth, the recipe's components and the non-numeric values computed beside them (the extracted
 * answer, a user module's strings), plus verl's uid and step when the dataset's extra_info had them.
 */
export interface VerlRewardRecord {
  key: string;
  gts: unknown;
  components: Record<string, number>;
  labels: Record<string, unknown>;
  uid?: string;
  step?: number;
}

/** The key the wrapper files a response under: the first 16 hex digits of its UTF-8 sha256. */
export function verlResponseKey(response: string): string {
  return createHash("sha256").update(response, "utf8").digest("hex").slice(0, 16);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The side file's parsed lines as records; a line of another shape (a torn write) is left out. */
export function verlRewardRecords(values: readonly unknown[]): VerlRewardRecord[] {
  return values.flatMap((value) => {
    if (!isRecord(value) || typeof value.key !== "string" || !isRecord(value.components)) return [];
    const components: Record<string, number> = {};
    for (const [name, n] of Object.entries(value.components)) if (typeof n === "number" && Number.isFinite(n)) components[name] = n;
    const record: VerlRewardRecord = { key: value.key, gts: value.gts, components, labels: isRecord(value.labels) ? value.labels : {} };
    if (typeof value.uid === "string") record.uid = value.uid;
    if (typeof value.step === "number") record.step = value.step;
    return [record];
  });
}

/**
 * Adds the side file's components to the rollouts of a dump (verl's v1 training dumps carry only
 * the score). A rollout matches the records of the same response and ground truth; the reward is a
 * function of those, so any of them holds the right components, but one with the rollout's verl
 * uid or step is preferred when the wrapper could record it. Labels fill `extra` where the dump had
 * no value of that name. Rollouts without a record are returned as they were.
 */
export function withRewardComponents(rollouts: readonly Rollout[], records: readonly VerlRewardRecord[]): Rollout[] {
  const byKey = new Map<string, VerlRewardRecord[]>();
  for (const record of records) {
    const same = byKey.get(record.key);
    if (same) same.push(record);
    else byKey.set(record.key, [record]);
  }
  return rollouts.map((rollout) => {
    const gts = JSON.stringify(rollout.groundTruth ?? null);
    const candidates = (byKey.get(verlResponseKey(rollout.response ?? "")) ?? []).filter((r) => JSON.stringify(r.gts ?? null) === gts);
    const uid = rollout.extra?.verlUid;
    const record =
      candidates.find((r) => r.uid !== undefined && r.uid === uid && r.step === rollout.step) ??
      candidates.find((r) => r.step === rollout.step) ??
      candidates.at(-1);
    if (!record) return rollout;
    const extra = { ...record.labels, ...rollout.extra };
    return {
      ...rollout,
      rewardComponents: { ...rollout.rewardComponents, ...record.components },
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
  });
}
