import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { paths, readCheckpoint, writeCheckpoint, writeFileAtomic } from "@evotrainer/contract";
import { basePolicy } from "./domains.ts";
import type { Policy } from "./policy.ts";
import type { GymDomain } from "./tasks/task.ts";

export const POLICY_FORMAT = "evo.gym.policy/v1";

/** The policy file a checkpoint points at: parameters by name, so a reader needs no layout knowledge. */
export interface PolicyFile {
  format: typeof POLICY_FORMAT;
  domain: GymDomain;
  step: number;
  logits: Record<string, number>;
  slopes: Record<string, number>;
  skill: number;
}

/** A checkpoint that cannot be used: missing, unreadable, or for another domain. */
export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
}

export function policyFileOf(policy: Policy, step: number): PolicyFile {
  const b = policy.behaviours.length;
  const byName = (offset: number) => Object.fromEntries(policy.behaviours.map((name, j) => [name, policy.params[offset + j]!]));
  return { format: POLICY_FORMAT, domain: policy.domain, step, logits: byName(0), slopes: byName(b), skill: policy.params[2 * b]! };
}

/** Saves the policy, then points `checkpoints/latest.json` at it (so the pointer never names a partial file). */
export async function saveCheckpoint(outputDir: string, policy: Policy, step: number): Promise<void> {
  const relative = `checkpoints/policy_step_${step}.json`;
  await writeFileAtomic(join(outputDir, relative), `${JSON.stringify(policyFileOf(policy, step), null, 2)}\n`);
  await writeCheckpoint(outputDir, { step, path: relative, createdAt: new Date().toISOString() });
}

/**
 * Loads a policy from `ref`: an output dir (its latest checkpoint), a `latest.json` pointer, or a
 * policy file. Relative references resolve against `base` (the job file's directory).
 */
export async function loadCheckpoint(ref: string, domain: GymDomain, base: string): Promise<{ policy: Policy; step: number }> {
  const at = isAbsolute(ref) ? ref : resolve(base, ref);
  let file = at;
  try {
    if ((await stat(at)).isDirectory()) {
      const pointer = await readCheckpoint(at);
      if (pointer === null) throw new CheckpointError(`${at}: no ${paths("").latestCheckpoint} in this directory`);
      file = resolve(at, pointer.path);
    } else if (at.endsWith("latest.json")) {
      const outputDir = dirname(dirname(at));
      const pointer = await readCheckpoint(outputDir);
      if (pointer === null) throw new CheckpointError(`${at}: checkpoint pointer not found`);
      file = resolve(outputDir, pointer.path);
    }
    return parsePolicyFile(JSON.parse(await readFile(file, "utf8")), domain, file);
  } catch (error) {
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError(`${file}: cannot load the gym checkpoint (${(error as Error).message})`);
  }
}

function parsePolicyFile(raw: unknown, domain: GymDomain, file: string): { policy: Policy; step: number } {
  const f = raw as Partial<PolicyFile>;
  if (f.format !== POLICY_FORMAT) throw new CheckpointError(`${file}: not a ${POLICY_FORMAT} file`);
  if (f.domain !== domain) throw new CheckpointError(`${file}: a ${f.domain} policy cannot train or evaluate on ${domain}`);
  const policy = basePolicy(domain);
  const b = policy.behaviours.length;
  policy.behaviours.forEach((name, j) => {
    const logit = f.logits?.[name];
    const slope = f.slopes?.[name];
    if (typeof logit !== "number" || typeof slope !== "number") throw new CheckpointError(`${file}: no parameters for behaviour ${name}`);
    policy.params[j] = logit;
    policy.params[b + j] = slope;
  });
  if (typeof f.skill !== "number" || typeof f.step !== "number") throw new CheckpointError(`${file}: skill or step missing`);
  policy.params[2 * b] = f.skill;
  return { policy, step: f.step };
}
