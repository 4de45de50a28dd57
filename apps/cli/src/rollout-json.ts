import type { Rollout } from "@evotrainer/contract";

// A trajectory is most of a rollout's bytes, and an import writes its JSON twice: hashed into the
// uid, then in the rollout's line. Kept per trajectory object, it is written once.
const trajectoryTexts = new WeakMap<object, string>();

/** JSON.stringify of a trajectory, computed once per trajectory object. */
export function trajectoryJson(trajectory: readonly unknown[]): string {
  let text = trajectoryTexts.get(trajectory);
  if (text === undefined) {
    text = JSON.stringify(trajectory);
    trajectoryTexts.set(trajectory, text);
  }
  return text;
}

/** The rollout's JSON (its trajectory last), reusing its trajectory's. */
export function rolloutJson(rollout: Rollout): string {
  const { trajectory, ...rest } = rollout;
  const head = JSON.stringify(rest);
  if (trajectory === undefined) return head;
  return `${head.slice(0, -1)}${head === "{}" ? "" : ","}"trajectory":${trajectoryJson(trajectory)}}`;
}
