import type { Rng } from "../rng.ts";
import type { TaskCommon } from "./task-common.ts";

export type MathOp = "add" | "sub" | "mul" | "div";

export interface MathStep {
  op: MathOp;
  operand: number;
  sentence: string;
}

/** A multi-step arithmetic word problem; harder ones have more steps and bigger numbers. */
export interface MathTask extends TaskCommon {
  domain: "math";
  name: string;
  item: string;
  start: number;
  steps: MathStep[];
  answer: number;
}

const NAMES = ["Janet", "Omar", "Priya", "Lukas", "Mei", "Tomás", "Aisha", "Noah"];
const ITEMS = ["apples", "marbles", "stickers", "coins", "books", "eggs", "stamps", "shells"];

export function apply(op: MathOp, value: number, operand: number): number {
  switch (op) {
    case "add":
      return value + operand;
    case "sub":
      return value - operand;
    case "mul":
      return value * operand;
    case "div":
      return Math.floor(value / operand);
  }
}

export const OP_SYMBOL: Record<MathOp, string> = { add: "+", sub: "-", mul: "*", div: "/" };

export function generateMathTask(id: string, difficulty: number, rng: Rng): MathTask {
  const name = rng.pick(NAMES);
  const item = rng.pick(ITEMS);
  const start = rng.int(5, 20 + Math.round(60 * difficulty));
  const count = 2 + Math.floor(difficulty * 5.99);
  const steps: MathStep[] = [];
  let value = start;
  for (let i = 0; i < count; i++) {
    const step = nextStep(value, difficulty, name, item, rng);
    steps.push(step);
    value = apply(step.op, value, step.operand);
  }
  const prompt =
    `${name} has ${start} ${item}. ${steps.map((s) => s.sentence).join(" ")} ` +
    `How many ${item} does ${name} have at the end?\nReason step by step and put your final answer within \\boxed{}.`;
  return { id, domain: "math", difficulty, prompt, groundTruth: String(value), name, item, start, steps, answer: value };
}

function nextStep(value: number, difficulty: number, name: string, item: string, rng: Rng): MathStep {
  const divisors = [2, 3, 4, 5].filter((m) => value % m === 0 && value / m >= 2);
  const roll = rng.next();
  if (roll < 0.2 && divisors.length > 0) {
    const m = rng.pick(divisors);
    return { op: "div", operand: m, sentence: `${name} splits the ${item} evenly into ${m} boxes and keeps one box.` };
  }
  if (roll < 0.4 && value < 150) {
    const m = rng.int(2, 2 + Math.round(2 * difficulty));
    return { op: "mul", operand: m, sentence: `The pile of ${item} then grows to ${m} times its size.` };
  }
  if (roll < 0.65 && value > 3) {
    const c = rng.int(1, value - 2);
    return { op: "sub", operand: c, sentence: `${name} gives ${c} ${item} to a friend.` };
  }
  const b = rng.int(2, 10 + Math.round(40 * difficulty));
  return { op: "add", operand: b, sentence: `${name} then gets ${b} more ${item}.` };
}
