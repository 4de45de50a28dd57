import { celFunc, CelScalar, isCelMap, listType, mapType, type CelFunc, type CelList } from "@bufbuild/cel";
import { codeBlock } from "../text/code-block.ts";
import { answersEqual, finalAnswer } from "../text/final-answer.ts";
import { patchChangedFiles, patchFiles } from "../text/patch-files.ts";
import { ngramRepeatRatio, repeatRun } from "../text/repetition.ts";
import { scriptMix } from "../text/script-mix.ts";
import { missingModule } from "../text/missing-module.ts";
import { sweRepo } from "../text/swe-repo.ts";
import { actionRepeatRun, moduleRanOk, firstCall, lastCall, lastCallBoth, toolCount, toolRepeatRun, type ToolCallView } from "../text/tool-calls.ts";
import { re2Span } from "./regex.ts";
import { STD_FUNCTIONS, type Overload } from "./stdlib.ts";
import { T } from "./types.ts";

const { STRING, INT, DOUBLE, BOOL, DYN } = CelScalar;
const ANY_LIST = listType(DYN);
const EVIDENCE_CHARS = 200;

/** A helper callable from rules: its runtime implementation and its typed signature for the checker. */
interface Helper {
  name: string;
  overload: Overload;
  func: CelFunc;
  /** Argument position that must be a literal RE2 pattern, checked when a rule is saved. */
  patternArg?: number;
}

function toolCalls(list: CelList): ToolCallView[] {
  const out: ToolCallView[] = [];
  for (const v of list) {
    if (!isCelMap(v)) continue;
    const name = v.get("name");
    const args = v.get("args");
    const result = v.get("result");
    out.push({ name: typeof name === "string" ? name : "", args: typeof args === "string" ? args : "", result: typeof result === "string" ? result : "", ok: v.get("ok") === true, refused: v.get("refused") === true });
  }
  return out;
}

function strings(list: CelList): string[] {
  return [...list].filter((x): x is string => typeof x === "string");
}

const HELPERS: readonly Helper[] = [
  {
    name: "ngram_repeat_ratio",
    overload: { args: [T.string, T.int], result: T.double },
    func: celFunc("ngram_repeat_ratio", [STRING, INT], DOUBLE, (s, n) => ngramRepeatRatio(s, Number(n))),
  },
  {
    name: "repeat_run",
    overload: { args: [T.string], result: T.int },
    func: celFunc("repeat_run", [STRING], INT, (s) => BigInt(repeatRun(s))),
  },
  {
    name: "match_span",
    overload: { args: [T.string, T.string], result: T.map(T.string, T.dyn) },
    patternArg: 1,
    func: celFunc("match_span", [STRING, STRING], mapType(STRING, DYN), (s, p) => {
      const span = re2Span(s, p);
      return span
        ? { found: true, start: BigInt(span.start), end: BigInt(span.end), text: span.text.slice(0, EVIDENCE_CHARS) }
        : { found: false, start: -1n, end: -1n, text: "" };
    }),
  },
  {
    name: "tool_count",
    overload: { args: [T.list(T.dyn), T.string], result: T.int },
    func: celFunc("tool_count", [ANY_LIST, STRING], INT, (l, name) => BigInt(toolCount(toolCalls(l), name))),
  },
  {
    name: "tool_repeat_run",
    overload: { args: [T.list(T.dyn)], result: T.int },
    func: celFunc("tool_repeat_run", [ANY_LIST], INT, (l) => BigInt(toolRepeatRun(toolCalls(l)))),
  },
  {
    // Longest run of the same call with the same result: a loop, where navigation showing new lines is not.
    name: "action_repeat_run",
    overload: { args: [T.list(T.dyn)], result: T.int },
    func: celFunc("action_repeat_run", [ANY_LIST], INT, (l) => BigInt(actionRepeatRun(toolCalls(l)))),
  },
  {
    // Whether a call ran Python on the module with success, and the agent did not install, mock or write it: the environment has it.
    name: "module_ran_ok",
    overload: { args: [T.list(T.dyn), T.string], result: T.bool },
    func: celFunc("module_ran_ok", [ANY_LIST, STRING], BOOL, (l, module) => moduleRanOk(toolCalls(l), module)),
  },
  {
    // The last call holding one of the first needles and one of the second (a Python heredoc that imports the repository).
    name: "last_call_both",
    overload: { args: [T.list(T.dyn), T.list(T.string), T.list(T.string)], result: T.int },
    func: celFunc("last_call_both", [ANY_LIST, listType(STRING), listType(STRING)], INT, (l, needles, also) =>
      BigInt(lastCallBoth(toolCalls(l), strings(needles), strings(also))),
    ),
  },
  {
    // Index of the last call whose "name args" text contains any of the needles, -1 when none does.
    // Substrings, not regexes: it runs per call, and @bufbuild/cel compiles a regex on every use.
    name: "last_call",
    overload: { args: [T.list(T.dyn), T.list(T.string)], result: T.int },
    func: celFunc("last_call", [ANY_LIST, listType(STRING)], INT, (l, needles) => BigInt(lastCall(toolCalls(l), strings(needles)))),
  },
  {
    // last_call restricted to calls that name one of the files (by base name): the last edit of a submitted file.
    name: "last_call_on",
    overload: { args: [T.list(T.dyn), T.list(T.string), T.list(T.string)], result: T.int },
    func: celFunc("last_call_on", [ANY_LIST, listType(STRING), listType(STRING)], INT, (l, needles, files) =>
      BigInt(lastCall(toolCalls(l), strings(needles), strings(files))),
    ),
  },
  {
    // The first call last_call_on would consider: the first edit of a submitted file, -1 when none.
    name: "first_call_on",
    overload: { args: [T.list(T.dyn), T.list(T.string), T.list(T.string)], result: T.int },
    func: celFunc("first_call_on", [ANY_LIST, listType(STRING), listType(STRING)], INT, (l, needles, files) =>
      BigInt(firstCall(toolCalls(l), strings(needles), strings(files))),
    ),
  },
  {
    // The top-level module a Python "No module named x" names, '' when there is none.
    name: "missing_module",
    overload: { args: [T.string], result: T.string },
    func: celFunc("missing_module", [STRING], STRING, (s) => missingModule(s)),
  },
  {
    name: "swe_repo",
    overload: { args: [T.string], result: T.string },
    func: celFunc("swe_repo", [STRING], STRING, (s) => sweRepo(s)),
  },
  {
    name: "patch_files",
    overload: { args: [T.string], result: T.list(T.string) },
    func: celFunc("patch_files", [STRING], listType(STRING), (s) => patchFiles(s)),
  },
  {
    // Files that existed before the patch and that it modifies or deletes (not the ones it creates).
    name: "patch_changed_files",
    overload: { args: [T.string], result: T.list(T.string) },
    func: celFunc("patch_changed_files", [STRING], listType(STRING), (s) => patchChangedFiles(s)),
  },
  {
    name: "final_answer",
    overload: { args: [T.string], result: T.string },
    func: celFunc("final_answer", [STRING], STRING, (s) => finalAnswer(s)),
  },
  {
    name: "answer_equals",
    overload: { args: [T.string, T.string], result: T.bool },
    func: celFunc("answer_equals", [STRING, STRING], BOOL, (a, b) => answersEqual(a, b)),
  },
  {
    name: "code_block",
    overload: { args: [T.string], result: T.string },
    func: celFunc("code_block", [STRING], STRING, (s) => codeBlock(s)),
  },
  {
    name: "script_mix",
    overload: { args: [T.string], result: T.double },
    func: celFunc("script_mix", [STRING], DOUBLE, (s) => scriptMix(s)),
  },
  {
    name: "tail",
    overload: { args: [T.string, T.int], result: T.string },
    func: celFunc("tail", [STRING, INT], STRING, (s, n) => (n <= 0n ? "" : s.slice(-Number(n)))),
  },
  {
    name: "lower",
    overload: { args: [T.string], result: T.string },
    func: celFunc("lower", [STRING], STRING, (s) => s.toLowerCase()),
  },
];

export const HELPER_FUNCS: readonly CelFunc[] = HELPERS.map((h) => h.func);

/** Every function a rule may call, with the signatures the checker accepts. */
export const ALLOWED_FUNCTIONS: Readonly<Record<string, readonly Overload[]>> = {
  ...STD_FUNCTIONS,
  ...Object.fromEntries(HELPERS.map((h) => [h.name, [h.overload]])),
};

/** Argument position holding a regex, per helper (`matches` is handled by the guards: its last argument). */
export const PATTERN_ARGS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(HELPERS.filter((h) => h.patternArg !== undefined).map((h) => [h.name, h.patternArg!])),
};

/** Names and signatures, for documentation and for proposers writing new detectors. */
export function helperSignatures(): string[] {
  return HELPERS.map((h) => `${h.name}(${h.overload.args.map((a) => a.kind).join(", ")}) -> ${h.overload.result.kind}`);
}
