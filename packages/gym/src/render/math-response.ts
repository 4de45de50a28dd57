import type { Rng } from "../rng.ts";
import { apply, OP_SYMBOL, type MathOp, type MathStep, type MathTask } from "../tasks/math.ts";

interface Line {
  step: MathStep;
  before: number;
  after: number;
}

/** The arithmetic chain a solver writes; a slip at one step carries through to the end. */
export function workedSteps(task: MathTask, slipAt: number | undefined, rng: Rng): Line[] {
  const lines: Line[] = [];
  let value = task.start;
  task.steps.forEach((step, i) => {
    let after = apply(step.op, value, step.operand);
    if (i === slipAt) after += rng.pick([-3, -2, -1, 1, 2, 3, 10]);
    lines.push({ step, before: value, after });
    value = after;
  });
  return lines;
}

const INVERSE: Record<MathOp, MathOp> = { add: "sub", sub: "add", mul: "div", div: "mul" };

// Varied wording, as a model's own is: a template repeated every step would read as a loop to
// the repetition detectors, which must fire on rambling, not on careful work.
const WORK: readonly ((s: string, calc: string, t: MathTask, after: number) => string)[] = [
  (s, c, t, a) => `${s} That means ${c}, so ${t.name} has ${a} ${t.item} at this point.`,
  (s, c, _t, a) => `Next: ${s} Computing ${c} leaves a running total of ${a}.`,
  (s, c, _t, a) => `${s} Working it out gives ${c}; the count is now ${a}.`,
  (s, c, t, a) => `After that, ${s} We get ${c}, which updates the tally to ${a} ${t.item}.`,
  (s, c, _t, a) => `Then ${s} Here ${c}, giving ${a}.`,
  (s, c, t, a) => `${s} Applying this to the previous amount: ${c}, and ${t.name} holds ${a}.`,
  (s, c) => `Moving on. ${s} Hence ${c}.`,
];
const CHECK: readonly ((check: string) => string)[] = [
  (c) => `Quick check: ${c}.`,
  (c) => `To verify, reversing it: ${c}.`,
  (c) => `Sanity check by undoing it, ${c}.`,
  (c) => `Going backwards confirms ${c}.`,
  (c) => `Double-checking with the inverse operation, ${c} holds.`,
  (c) => `In reverse, ${c}, as expected.`,
  (c) => `Verifying once more: ${c}.`,
];

// Each step is worked and then checked backwards, so longer problems need proportionally longer answers.
function stepLine(task: MathTask, line: Line, i: number): string {
  const { step, before, after } = line;
  const calc = `${before} ${OP_SYMBOL[step.op]} ${step.operand} = ${after}`;
  const inverse = INVERSE[step.op];
  const check = `${after} ${OP_SYMBOL[inverse]} ${step.operand} = ${apply(inverse, after, step.operand)}`;
  return `${WORK[i % WORK.length]!(step.sentence, calc, task, after)} ${CHECK[(i + 3) % CHECK.length]!(check)}`;
}

function opening(task: MathTask): string {
  return (
    `Let me work through this step by step. ${task.name} starts with ${task.start} ${task.item}, and there are ` +
    `${task.steps.length} events to track, so I will handle them in order and verify each one.`
  );
}

function totals(task: MathTask, lines: readonly Line[]): string {
  return `The running totals were ${[task.start, ...lines.map((l) => l.after)].join(", ")}.`;
}

/** A worked solution; `format` decides whether it commits to a boxed final answer. */
export function renderSolution(task: MathTask, lines: readonly Line[], format: "boxed" | "none"): string {
  const result = lines.at(-1)?.after ?? task.start;
  const body = [opening(task), ...lines.map((l, i) => stepLine(task, l, i)), totals(task, lines)];
  if (format === "boxed") body.push(`Therefore the final answer is \\boxed{${result}}.`);
  else body.push(`So at the end ${task.name} is left holding ${result} ${task.item} in total.`);
  return body.join("\n");
}

/**
 * Starts like a worked solution, then re-checks the same steps over and over (the loop real
 * policies fall into) before it finally commits; long enough to hit most length limits.
 */
export function renderRamble(task: MathTask, lines: readonly Line[], rechecks: number): string {
  const result = lines.at(-1)?.after ?? task.start;
  const out = [opening(task), ...lines.map((l, i) => stepLine(task, l, i))];
  for (let k = 0; k < rechecks; k++) {
    const l = lines[k % lines.length]!;
    out.push(`Wait, let me double-check that step again: ${l.before} ${OP_SYMBOL[l.step.op]} ${l.step.operand} = ${l.after}. Yes, that gives ${l.after}.`);
  }
  out.push(`Hmm, I keep getting the same value, so the final answer is \\boxed{${result}}.`);
  return out.join("\n");
}

export function renderGuess(task: MathTask, guess: number): string {
  return `This looks like it should come to about ${guess} ${task.item}.\n\\boxed{${guess}}`;
}
