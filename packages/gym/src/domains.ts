import { codeModel } from "./episodes/code.ts";
import type { DomainModel } from "./episodes/episode.ts";
import { mathModel } from "./episodes/math.ts";
import { sweModel } from "./episodes/swe.ts";
import type { Policy } from "./policy.ts";
import type { GymDomain, Task } from "./tasks/task.ts";

// Each model only ever receives tasks of its own domain (pools are generated per domain).
const MODELS = { math: mathModel, code: codeModel, swe: sweModel } as unknown as Record<GymDomain, DomainModel<Task>>;

export function domainModel(domain: GymDomain): DomainModel<Task> {
  return MODELS[domain];
}

/** The reference policy `gym:<domain>`: the base model every branch's KL is measured against. */
export function basePolicy(domain: GymDomain): Policy {
  const model = MODELS[domain];
  const b = model.behaviours.length;
  const params = new Float64Array(2 * b + 1);
  model.baseProbs.forEach((p, j) => {
    params[j] = Math.log(p);
  });
  params[2 * b] = model.baseSkill;
  return { domain, behaviours: model.behaviours, params };
}
