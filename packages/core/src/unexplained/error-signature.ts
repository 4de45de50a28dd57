import type { Rollout, Turn } from "@evotrainer/contract";
import type { Domain } from "../harness/detector.ts";
import { answerFormat } from "./answer-format.ts";
import { errorLineIn, exceptionIn } from "./error-lines.ts";
import { isNegativeAnswer } from "./negative-answer.ts";
import { normaliseErrorText } from "./normalise-error.ts";
import { programOf } from "./shell-command.ts";

/** How one failed rollout failed, with what varies between occurrences taken out. */
export interface ErrorSignature {
  /** "OperationalError: no such table: <…>": the exception type and its normalised message. */
  exception: string | null;
  /** The program of the failing command ("python", "pytest", "python -m pytest", "sed"). */
  program: string | null;
  /** The normalised error line of the failing tool output, when it names no exception. */
  errorLine: string | null;
  /** The grader's normalised status of a single-response (code) rollout ("Time Limit Exceeded"). */
  testStatus: string | null;
  /** Math: the form of the final answer ("boxed fraction", "no answer"). */
  answerFormat: string | null;
  /** The line the signature was read from, as it was: a drafted detector's must-match case. */
  raw: string | null;
  /** Where `raw` was read: a tool output, the grader's message or status, or the response. */
  source: "tool_output" | "test_message" | "test_status" | "response" | null;
  /** The exact clustering key, all the parts above in one sentence. */
  key: string;
}

interface ToolStep {
  command: string;
  toolName: string;
  output: string;
}

/** Tool outputs paired with the call that produced them, in order. */
function toolSteps(trajectory: readonly Turn[]): { steps: ToolStep[]; failed: boolean[] } {
  const steps: ToolStep[] = [];
  const failed: boolean[] = [];
  let pending: { name: string; arguments: unknown }[] = [];
  for (const turn of trajectory) {
    if (turn.role === "assistant") pending = [...(turn.toolCalls ?? [])];
    else if (turn.role === "tool") {
      const at = pending.findIndex((c) => turn.toolName === undefined || c.name === turn.toolName);
      const call = at >= 0 ? pending.splice(at, 1)[0] : undefined;
      const step = { command: commandOf(call?.arguments), toolName: call?.name ?? turn.toolName ?? "", output: turn.content };
      steps.push(step);
      // Only the data's own status says a call failed; without one, an exception in the output does.
      // A grep that matched nothing, a false `test` or a diff that found differences answered "no": no failure.
      failed.push((turn.isError ?? exceptionIn(turn.content) !== null) && !isNegativeAnswer(step.command, step.output));
    }
  }
  return { steps, failed };
}

function commandOf(args: unknown): string {
  if (typeof args === "string") return args;
  if (args && typeof args === "object") {
    for (const key of ["command", "cmd", "code", "script"]) {
      const v = (args as Record<string, unknown>)[key];
      if (typeof v === "string") return v;
    }
  }
  return "";
}

/**
 * The failing tool output a signature is read from: the last one that raised an exception, else the
 * last that printed an error line, else the last that failed at all.
 */
function failingStep(trajectory: readonly Turn[]): ToolStep | null {
  const { steps, failed } = toolSteps(trajectory);
  const failing = steps.filter((_, i) => failed[i]);
  return failing.findLast((s) => exceptionIn(s.output) !== null) ?? failing.findLast((s) => errorLineIn(s.output) !== null) ?? failing.at(-1) ?? null;
}

/** The normalised error signature of one failed rollout: the parts that say how it failed, and one key. */
export function errorSignature(rollout: Rollout, domain: Domain): ErrorSignature {
  let exception: string | null = null;
  let program: string | null = null;
  let errorLine: string | null = null;
  let testStatus: string | null = null;
  let format: string | null = null;
  let raw: string | null = null;
  let source: ErrorSignature["source"] = null;

  if (rollout.trajectory && rollout.trajectory.some((t) => t.role === "tool")) {
    const step = failingStep(rollout.trajectory);
    if (step) {
      program = programOf(step.command) ?? (step.toolName || null);
      const ex = exceptionIn(step.output);
      const line = ex ? null : errorLineIn(step.output);
      exception = ex?.exception ?? null;
      errorLine = line === null ? (ex ? null : "failed with no error line") : normaliseErrorText(line);
      raw = ex?.raw ?? line;
      source = raw === null ? null : "tool_output";
    }
  } else if (rollout.testResults) {
    const ex = rollout.testResults.message ? exceptionIn(rollout.testResults.message) : null;
    exception = ex?.exception ?? null;
    if (ex) [raw, source] = [ex.raw, "test_message"];
    if (rollout.testResults.status) {
      testStatus = normaliseErrorText(rollout.testResults.status);
      if (!ex) [raw, source] = [rollout.testResults.status, "test_status"];
    }
  }
  if (domain === "math") {
    const f = answerFormat(rollout.response ?? "");
    format = f.where ? `${f.where} ${f.kind}` : f.kind;
  }

  const parts = [program && `$ ${program}`, exception ?? errorLine, testStatus && `tests: ${testStatus}`, format && `answer: ${format}`].filter((p): p is string => !!p);
  const key = parts.length > 0 ? parts.join(" · ") : `no error recorded (finish: ${rollout.finishReason ?? "none"})`;
  return { exception, program, errorLine, testStatus, answerFormat: format, raw, source, key };
}
