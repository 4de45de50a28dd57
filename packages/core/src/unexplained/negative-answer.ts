import { ERROR_WORDS, exceptionIn, outputLines } from "./error-lines.ts";
import { commandWords, programName, SETUP_PROGRAMS, statusCommands } from "./shell-command.ts";

/**
 * Programs whose documented exit status 1 is an answer, "no", and whose errors exit 2 or more with
 * a message (GNU grep, ripgrep, ag, ack, pgrep: no line or process matched; test, [ and [[: the
 * expression is false; which, command -v: the name is not installed; diff, cmp: the inputs differ).
 * `quiet` predicates print nothing of their own when they answer no; `differences` print the
 * differences, which can hold any text.
 */
type Predicate = "quiet" | "differences";
const QUIET = new Set(["grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "pgrep", "test", "[", "[[", "which"]);
const DIFFERENCES = new Set(["diff", "cmp"]);
// Programs that, when they fail, say so in a message of their own (`ls: cannot access …`, `sed: -e
// expression #1 …`, `make: *** … Error 2`): in a line of predicates they count as set-up, and their
// message, if any, as an error of the output.
const SAY_SO = new Set(["cat", "head", "tail", "sort", "uniq", "wc", "cut", "tr", "nl", "ls", "find", "sed", "awk", "make", "mkdir", "touch", "cp", "mv", "rm"]);

// The exit status mini-swe-agent writes at the top of an observation.
const RETURNCODE = /^\s*<returncode>(-?\d+)<\/returncode>/;
// grep's notes that are not errors: a binary file matched (grep ≥ 3.5 says so on stderr), egrep is obsolescent.
const GREP_NOTE = /\bbinary file (.* )?matches$|^\S+: warning:/i;
// A line a program writes as its own message: `name: …` at the start (`diff: b.txt: No such file or directory`, `bash: cd: x: …`).
const PROGRAM_MESSAGE = /^[\w./[][\w./[-]*: /;

function predicateOf(words: readonly string[]): Predicate | "setup" | null {
  const program = programName(words[0] ?? "");
  if (SETUP_PROGRAMS.has(program) || SAY_SO.has(program)) return "setup";
  if (QUIET.has(program)) return "quiet";
  if (DIFFERENCES.has(program)) return "differences";
  if (program === "command" && (words[1] === "-v" || words[1] === "-V")) return "quiet";
  if (program === "git") {
    // git's own options before the subcommand: -C <dir>, -c <key=value>, --no-pager.
    let i = 1;
    while (i < words.length && words[i]!.startsWith("-")) i += words[i] === "-C" || words[i] === "-c" ? 2 : 1;
    if (words[i] === "grep") return "quiet";
    // git diff exits 1 on differences only when asked to (--no-index and --quiet imply --exit-code).
    if (words[i] === "diff" && words.some((w) => w === "--exit-code" || w === "--quiet" || w === "--no-index")) return "differences";
  }
  return null;
}

/** An output line that reports an error rather than the predicate's answer. */
function isErrorLine(line: string, predicate: Predicate, names: readonly string[]): boolean {
  if (predicate === "differences") return PROGRAM_MESSAGE.test(line) && (ERROR_WORDS.test(line) || exceptionIn(line) !== null);
  if (GREP_NOTE.test(line)) return false;
  const own = names.some((name) => line.startsWith(`${name}: `) || line.includes(`: ${name}: `));
  return own || ERROR_WORDS.test(line) || exceptionIn(line) !== null;
}

/**
 * Whether a call that exited non-zero only answered "no": the commands whose status the shell
 * reports are predicates (set-up such as `cd` aside, whose failure prints an error), the exit status
 * is 1 where the output records it, and the output shows no error: no exception, no error line and
 * no message of the predicate itself (for diff and cmp, whose output is the differences, no line a
 * program wrote as its own error). `… | xargs grep` stays a failure: xargs turns grep's 1 into 123,
 * the status it also gives grep's errors.
 */
export function isNegativeAnswer(command: string, output: string): boolean {
  const code = RETURNCODE.exec(output);
  if (code && code[1] !== "1") return false;
  const commands = statusCommands(command).map((c) => commandWords(c));
  const kinds = commands.map(predicateOf);
  if (kinds.includes(null) || !kinds.some((k) => k === "quiet" || k === "differences")) return false;
  // Output read as differences only when no quiet predicate could have answered: the stricter reading otherwise.
  const predicate: Predicate = kinds.includes("quiet") ? "quiet" : "differences";
  const names = commands.map((w) => programName(w[0]!));
  return !outputLines(output).some((line) => isErrorLine(line.trim(), predicate, names));
}
