import type { Rollout, Turn } from "@evotrainer/contract";
import type { Domain } from "../harness/detector.ts";
import { answerFormat } from "./answer-format.ts";
import { normaliseErrorText } from "./normalise-error.ts";

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

// A Python (or Java/JS) exception line: dotted type name, then its message. Types that do not end
// in one of these words (SystemExit aside) are too easily confused with prose.
const EXCEPTION_LINE = /^\s*(?:[A-Za-z_][\w]*\.)*([A-Z][\w]*(?:Error|Exception|Exit|Interrupt|Failure|DoesNotExist|NotFound|Warning))(?::\s?(.*))?$/;
// The repr form graders record: TypeError("'int' object is not subscriptable"), TimeoutException().
const EXCEPTION_REPR = /^\s*([A-Z][\w]*(?:Error|Exception|Exit|Interrupt))\((.*)\)\s*$/;
const ERROR_WORDS = /\b(error|errors|failed|failure|fatal|not found|no such|cannot|can't|couldn't|unable|denied|invalid|unrecognized|unknown|missing|refused|timed out|timeout|abort(ed)?|segmentation fault|killed|usage:)/i;
// Wrapper tags some agent formats put around a command's output (mini-swe-agent's <returncode>, <output>).
const WRAPPER_LINE = /^\s*(<\/?[a-z_]+>\s*)+$|^\s*<returncode>\d+<\/returncode>\s*$/i;
// Words before a command that are not its program.
const PREFIX_WORDS = new Set(["sudo", "env", "time", "nohup", "exec", "command", "timeout", "stdbuf", "xargs"]);
// Commands that only set up the next one.
const SETUP_PROGRAMS = new Set(["cd", "export", "source", ".", "set", "pushd", "popd", "true", "unset", "echo", "printf", "sleep", "clear"]);

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
      steps.push({ command: commandOf(call?.arguments), toolName: call?.name ?? turn.toolName ?? "", output: turn.content });
      // Only the data's own status says a call failed; without one, an exception in the output does.
      failed.push(turn.isError ?? exceptionIn(turn.content) !== null);
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

// A here-document's body (cat <<'EOF' > x.py … EOF) is data, not commands.
const HEREDOC = /(<<-?\s*(["']?)(\w+)\2)([^\n]*)\n[\s\S]*?\n[ \t]*\3[ \t]*(?=\n|$|[;&|])/g;

function programOfSegment(segment: string): string | null {
  const words = segment.trim().split(/\s+/).filter((w) => w !== "");
  let i = 0;
  while (i < words.length && (/^\w+=/.test(words[i]!) || PREFIX_WORDS.has(words[i]!) || /^-/.test(words[i]!) || /^\d+[smh]?$/.test(words[i]!))) i++;
  const word = words[i];
  if (word === undefined) return null;
  // An installed program by its name (/usr/bin/python3 is python3); a repository's own runner as
  // the repository names it (bin/test, tests/runtests.py).
  const bare = word.replace(/^["'(]+|["')]+$/g, "");
  const program = bare.startsWith("/") ? bare.split("/").pop()! : bare.replace(/^\.\//, "");
  if (SETUP_PROGRAMS.has(program) || program === "") return null;
  const python = /^python(\d(\.\d+)?)?$/.test(program);
  if (python && words[i + 1] === "-m" && words[i + 2]) return `python -m ${words[i + 2]}`;
  if (python && words[i + 1] === "-c") return "python -c";
  return python ? "python" : program;
}

/**
 * The program a shell command runs: of a chain (`cd x && cat > t.py <<EOF … EOF && python t.py`) the
 * last step that is not set-up, since a chain stops at its first failure and set-up rarely fails; of
 * a pipeline (`python t.py 2>&1 | tail`) the first command, whose output the rest only trims.
 */
export function programOf(command: string): string | null {
  const steps = command.replace(HEREDOC, "$1$4").split(/&&|\|\||;|\n/);
  for (let i = steps.length - 1; i >= 0; i--) {
    const program = programOfSegment(steps[i]!.split("|")[0]!);
    if (program !== null) return program;
  }
  return null;
}

/** The last exception line of a text, normalised ("KeyError: <q>"), with the line as it was. */
function exceptionIn(text: string): { exception: string; raw: string } | null {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const m = EXCEPTION_LINE.exec(line) ?? EXCEPTION_REPR.exec(line);
    if (!m) continue;
    let message = (m[2] ?? "").trim();
    // A repr's argument is itself quoted: TypeError("'int' object …") holds the message in quotes.
    if (EXCEPTION_REPR.test(line)) message = message.replace(/^(["'])(.*)\1$/s, "$2");
    const normalised = message === "" ? "" : normaliseErrorText(message);
    return { exception: normalised === "" ? m[1]! : `${m[1]}: ${normalised}`, raw: line.trim() };
  }
  return null;
}

/** The last line of an output that says what went wrong, or null. */
function errorLineIn(text: string): string | null {
  const lines = text.split("\n").filter((l) => l.trim() !== "" && !WRAPPER_LINE.test(l));
  for (let i = lines.length - 1; i >= 0; i--) if (ERROR_WORDS.test(lines[i]!)) return lines[i]!.trim();
  return null;
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
