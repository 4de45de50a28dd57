import type { GymDomain } from "./tasks/task.ts";

/**
 * The gym's stand-in for an LLM: a softmax over behaviours whose logits shift with a task's
 * difficulty (the prompt tells a model how hard a problem looks), and a skill that sets how often
 * a genuine attempt comes out right. Parameters live in one flat vector so the optimiser is plain
 * arithmetic: [logits (B), difficulty slopes (B), skill].
 */
export interface Policy {
  domain: GymDomain;
  behaviours: readonly string[];
  params: Float64Array;
}

/** One sampled decision: which behaviour, and for a genuine attempt whether it came out right. */
export interface Action {
  difficulty: number;
  behaviour: number;
  outcome?: { correct: boolean; bias: number };
}

// How sharply skill separates easy from hard tasks: at skill = difficulty an attempt is a coin flip.
const SKILL_SHARPNESS = 6;

function skillOf(policy: Policy): number {
  return policy.params[2 * policy.behaviours.length]!;
}

export function behaviourProbs(policy: Policy, difficulty: number, temperature: number): Float64Array {
  const b = policy.behaviours.length;
  const p = new Float64Array(b);
  let max = -Infinity;
  for (let j = 0; j < b; j++) {
    p[j] = (policy.params[j]! + policy.params[b + j]! * (difficulty - 0.5)) / temperature;
    if (p[j]! > max) max = p[j]!;
  }
  let sum = 0;
  for (let j = 0; j < b; j++) {
    p[j] = Math.exp(p[j]! - max);
    sum += p[j]!;
  }
  for (let j = 0; j < b; j++) p[j] = p[j]! / sum;
  return p;
}

function outcomeLogit(policy: Policy, difficulty: number, bias: number, temperature: number): number {
  return (SKILL_SHARPNESS * (skillOf(policy) - difficulty) + bias) / temperature;
}

export function successProb(policy: Policy, difficulty: number, bias: number, temperature: number): number {
  return sigmoid(outcomeLogit(policy, difficulty, bias, temperature));
}

/** Inverse-CDF draw, so one uniform number picks one behaviour (common random numbers in eval). */
export function drawBehaviour(probs: Float64Array, u: number): number {
  let acc = 0;
  for (let j = 0; j < probs.length; j++) {
    acc += probs[j]!;
    if (u < acc) return j;
  }
  return probs.length - 1;
}

export function logProb(policy: Policy, action: Action, temperature: number): number {
  const p = behaviourProbs(policy, action.difficulty, temperature);
  let lp = Math.log(Math.max(p[action.behaviour]!, 1e-300));
  if (action.outcome) {
    const z = outcomeLogit(policy, action.difficulty, action.outcome.bias, temperature);
    lp += logSigmoid(action.outcome.correct ? z : -z);
  }
  return lp;
}

/** grad += scale · ∇ log π(action). */
export function addLogProbGrad(policy: Policy, action: Action, temperature: number, scale: number, grad: Float64Array): void {
  const b = policy.behaviours.length;
  const p = behaviourProbs(policy, action.difficulty, temperature);
  const x = action.difficulty - 0.5;
  for (let j = 0; j < b; j++) {
    const dz = ((j === action.behaviour ? 1 : 0) - p[j]!) / temperature;
    grad[j] = grad[j]! + scale * dz;
    grad[b + j] = grad[b + j]! + scale * dz * x;
  }
  if (action.outcome) {
    const q = sigmoid(outcomeLogit(policy, action.difficulty, action.outcome.bias, temperature));
    const ds = (SKILL_SHARPNESS / temperature) * ((action.outcome.correct ? 1 : 0) - q);
    grad[2 * b] = grad[2 * b]! + scale * ds;
  }
}

export function entropy(p: Float64Array): number {
  let h = 0;
  for (const x of p) if (x > 0) h -= x * Math.log(x);
  return h;
}

/** grad += scale · ∇ H(π(·|d)). */
export function addEntropyGrad(policy: Policy, difficulty: number, temperature: number, scale: number, grad: Float64Array): void {
  const b = policy.behaviours.length;
  const p = behaviourProbs(policy, difficulty, temperature);
  const h = entropy(p);
  const x = difficulty - 0.5;
  for (let j = 0; j < b; j++) {
    const dz = (-p[j]! * (Math.log(Math.max(p[j]!, 1e-300)) + h)) / temperature;
    grad[j] = grad[j]! + scale * dz;
    grad[b + j] = grad[b + j]! + scale * dz * x;
  }
}

/**
 * KL(π ‖ reference) over behaviours at one difficulty. The skill is left out: the reference keeps
 * the policy's habits close to the base model's, it does not pin its competence.
 */
export function klToReference(policy: Policy, reference: Policy, difficulty: number, temperature: number): number {
  const p = behaviourProbs(policy, difficulty, temperature);
  const r = behaviourProbs(reference, difficulty, temperature);
  let kl = 0;
  for (let j = 0; j < p.length; j++) if (p[j]! > 0) kl += p[j]! * (Math.log(p[j]!) - Math.log(Math.max(r[j]!, 1e-300)));
  return kl;
}

/** grad += scale · ∇ KL(π ‖ reference). */
export function addKlGrad(policy: Policy, reference: Policy, difficulty: number, temperature: number, scale: number, grad: Float64Array): void {
  const b = policy.behaviours.length;
  const p = behaviourProbs(policy, difficulty, temperature);
  const r = behaviourProbs(reference, difficulty, temperature);
  const kl = klToReference(policy, reference, difficulty, temperature);
  const x = difficulty - 0.5;
  for (let j = 0; j < b; j++) {
    const lr = Math.log(Math.max(p[j]!, 1e-300)) - Math.log(Math.max(r[j]!, 1e-300));
    const dz = (p[j]! * (lr - kl)) / temperature;
    grad[j] = grad[j]! + scale * dz;
    grad[b + j] = grad[b + j]! + scale * dz * x;
  }
}

function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

function logSigmoid(z: number): number {
  return z >= 0 ? -Math.log1p(Math.exp(-z)) : z - Math.log1p(Math.exp(z));
}
