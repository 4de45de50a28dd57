import type { CelInput, CelValue } from "@bufbuild/cel";
import type { Expr } from "./ast.ts";
import { codeBlock } from "../text/code-block.ts";
import { answersEqual, finalAnswer } from "../text/final-answer.ts";
import { patchChangedFiles, patchFiles } from "../text/patch-files.ts";
import { ngramRepeatRatio, repeatRun, repeatRunAtLeast } from "../text/repetition.ts";
import { scriptMix } from "../text/script-mix.ts";
import { missingModule } from "../text/missing-module.ts";
import { sweRepo } from "../text/swe-repo.ts";
import { actionRepeatRun, moduleRanOk, firstCall, lastCall, lastCallBoth, toolCount, toolRepeatRun, type ToolCallView } from "../text/tool-calls.ts";
import { hasNonSpace, literalPlan, literalVerdict } from "./literal-prefilter.ts";
import { cachingRe2, re2Span } from "./regex.ts";
import { startPlan, startVerdict } from "./start-literals.ts";

/**
 * A CEL rule compiled once into nested JS closures: the fast path for detectors. It covers the
 * subset the catalog and evolved detectors use (constants, variables, field selection, logic,
 * comparisons of same-typed scalars, string concatenation, size, matches, list and map literals,
 * comprehensions and the helpers). Anything else is left to the @bufbuild/cel interpreter, which
 * stays the reference: a node the compiler does not know makes `compileClosures` return undefined,
 * and a runtime case it does not model exactly (mixed types, an error, a missing variable) throws
 * `Fallback` so the caller re-evaluates that rollout with the interpreter. The closure therefore
 * only ever answers where its answer is the interpreter's.
 */
export type Closure = (bindings: Readonly<Record<string, CelInput>>) => CelValue;

export class Fallback extends Error {}
const FALLBACK = new Fallback("fallback to the interpreter");

/**
 * What a closure reads: the rollout's bindings, or inside a comprehension a frame holding its
 * iteration and accumulator values over the enclosing scope. Frames are small fixed-shape objects
 * whose variables are resolved when the rule is compiled, so evaluating never copies the bindings.
 */
interface Frame {
  up: Scope;
  it: unknown;
  acc: unknown;
}
type Scope = Record<string, unknown> | Frame;
type Fn = (scope: Scope) => unknown;
/** The comprehensions enclosing an expression, innermost last. */
type Env = readonly { iterVar: string; accuVar: string }[];

const EVIDENCE_CHARS = 200;

function fail(): never {
  throw FALLBACK;
}

const str = (v: unknown): string => (typeof v === "string" ? v : fail());
const int = (v: unknown): bigint => (typeof v === "bigint" ? v : fail());
const bool = (v: unknown): boolean => (typeof v === "boolean" ? v : fail());
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : fail());
/** A list of strings, checked and passed on as it is: a rule's constant list keeps its identity for helpers that build from it once. */
const strings = (v: unknown): string[] => (list(v).every((x) => typeof x === "string") ? (v as string[]) : fail());

function toolCalls(l: unknown[]): ToolCallView[] {
  const out: ToolCallView[] = [];
  for (const v of l) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) continue;
    const { name, args, result, ok, refused } = v as { name?: unknown; args?: unknown; result?: unknown; ok?: unknown; refused?: unknown };
    out.push({ name: typeof name === "string" ? name : "", args: typeof args === "string" ? args : "", result: typeof result === "string" ? result : "", ok: ok === true, refused: refused === true });
  }
  return out;
}

/**
 * The helpers of functions.ts on plain JS values (ints as bigint, as the interpreter binds them). A
 * helper missing here is not an error, only slower: rules calling it stay with the interpreter.
 */
export const CLOSURE_HELPERS: Readonly<Record<string, (...a: unknown[]) => unknown>> = {
  ngram_repeat_ratio: (s, n) => ngramRepeatRatio(str(s), Number(int(n))),
  repeat_run: (s) => BigInt(repeatRun(str(s))),
  match_span: (s, p) => {
    const span = re2Span(str(s), str(p));
    return span
      ? { found: true, start: BigInt(span.start), end: BigInt(span.end), text: span.text.slice(0, EVIDENCE_CHARS) }
      : { found: false, start: -1n, end: -1n, text: "" };
  },
  tool_count: (l, name) => BigInt(toolCount(toolCalls(list(l)), str(name))),
  tool_repeat_run: (l) => BigInt(toolRepeatRun(toolCalls(list(l)))),
  action_repeat_run: (l) => BigInt(actionRepeatRun(toolCalls(list(l)))),
  module_ran_ok: (l, module) => moduleRanOk(toolCalls(list(l)), str(module)),
  last_call_both: (l, needles, also) => BigInt(lastCallBoth(toolCalls(list(l)), strings(needles), strings(also))),
  last_call: (l, needles) => BigInt(lastCall(toolCalls(list(l)), strings(needles))),
  last_call_on: (l, needles, files) => BigInt(lastCall(toolCalls(list(l)), strings(needles), strings(files))),
  first_call_on: (l, needles, files) => BigInt(firstCall(toolCalls(list(l)), strings(needles), strings(files))),
  missing_module: (s) => missingModule(str(s)),
  swe_repo: (s) => sweRepo(str(s)),
  patch_files: (s) => patchFiles(str(s)),
  patch_changed_files: (s) => patchChangedFiles(str(s)),
  final_answer: (s) => finalAnswer(str(s)),
  answer_equals: (a, b) => answersEqual(str(a), str(b)),
  code_block: (s) => codeBlock(str(s)),
  script_mix: (s) => scriptMix(str(s)),
  tail: (s, n) => (int(n) <= 0n ? "" : str(s).slice(-Number(n))),
  lower: (s) => str(s).toLowerCase(),
};

/**
 * Pure helpers, computed once per rollout however many detectors call them with the same arguments
 * (code_block(response) is read by several code detectors, final_answer by several math ones,
 * last_call_on(tool_calls, …) twice by one swe rule). Arguments are keyed by identity: variables are
 * read from bindings that keep what they computed, and constant lists are built once per rule.
 */
const MEMOISED = new Set([
  "ngram_repeat_ratio", "repeat_run", "patch_files", "patch_changed_files", "final_answer", "code_block", "script_mix",
  "tool_count", "tool_repeat_run", "action_repeat_run", "module_ran_ok", "last_call", "last_call_both", "last_call_on", "first_call_on",
]);
let memoBindings: object | undefined;
// Bumped for each new rollout: entries of an older one are dropped when next looked at.
let generation = 0;

interface MemoEntry {
  generation: number;
  args: unknown[];
  value: unknown;
}
/** The entries of one helper, shared by every call site of it (a rollout makes one or a few calls each). */
const memoEntries = new Map<string, MemoEntry[]>();

function memoFor(fn: string): MemoEntry[] {
  let entries = memoEntries.get(fn);
  if (!entries) memoEntries.set(fn, (entries = []));
  return entries;
}

function memoised(entries: MemoEntry[], helper: (...a: unknown[]) => unknown, args: unknown[]): unknown {
  if (entries.length > 0 && entries[0]!.generation !== generation) entries.length = 0;
  for (const e of entries) if (e.args.length === args.length && e.args.every((a, i) => a === args[i])) return e.value;
  const value = helper(...args);
  entries.push({ generation, args, value });
  return value;
}

/** Same-typed scalars only: strings, bools, ints (bigint) or doubles. Strings are not ordered here (CEL orders code points). */
function scalarPair(a: unknown, b: unknown, ordered: boolean): void {
  const t = typeof a;
  if (t !== typeof b) fail();
  if (t === "bigint" || t === "number" || t === "boolean") return;
  if (t === "string" && !ordered) return;
  fail();
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function compileCall(fn: string, target: Fn | undefined, args: Fn[], rawArgs: Expr[], env: Env): Fn | undefined {
  const [a, b, c] = args;
  if (target === undefined) {
    switch (fn) {
      case "_&&_":
      case "_||_": {
        // CEL's logic is commutative over errors: false && error is false, true || error is true.
        const absorbing = fn === "_||_";
        return (s) => {
          let left: unknown;
          let leftErr = false;
          try {
            left = a!(s);
          } catch {
            leftErr = true;
          }
          if (left === absorbing) return absorbing;
          const right = b!(s);
          if (right === absorbing) return absorbing;
          if (leftErr) fail();
          bool(left);
          bool(right);
          return !absorbing;
        };
      }
      case "!_":
        return (s) => !bool(a!(s));
      case "@not_strictly_false":
        return (s) => {
          try {
            return a!(s) !== false;
          } catch {
            return true;
          }
        };
      case "_?_:_":
        return (s) => (bool(a!(s)) ? b!(s) : c!(s));
      case "_==_":
      case "_!=_": {
        const eq = fn === "_==_";
        return (s) => {
          const x = a!(s);
          const y = b!(s);
          scalarPair(x, y, false);
          return (x === y) === eq;
        };
      }
      case "_<_":
        return (s) => { const x = a!(s); const y = b!(s); scalarPair(x, y, true); return (x as number) < (y as number); };
      case "_<=_":
        return (s) => { const x = a!(s); const y = b!(s); scalarPair(x, y, true); return (x as number) <= (y as number); };
      case "_>_":
        return (s) => { const x = a!(s); const y = b!(s); scalarPair(x, y, true); return (x as number) > (y as number); };
      case "_>=_": {
        const atLeast = repeatRunThreshold(rawArgs, env);
        if (atLeast) return atLeast;
        return (s) => { const x = a!(s); const y = b!(s); scalarPair(x, y, true); return (x as number) >= (y as number); };
      }
      case "_+_":
        // Strings and lists only: int addition has overflow errors the interpreter reports.
        return (s) => {
          const x = a!(s);
          const y = b!(s);
          if (Array.isArray(x) && Array.isArray(y)) return [...x, ...y];
          return str(x) + str(y);
        };
      case "size":
        return (s) => {
          const v = a!(s);
          if (typeof v === "string") return BigInt(codePoints(v));
          return BigInt(list(v).length);
        };
      default: {
        const helper = CLOSURE_HELPERS[fn];
        if (!helper || !Object.hasOwn(CLOSURE_HELPERS, fn)) return undefined;
        if (!MEMOISED.has(fn)) return (s) => helper(...args.map((f) => f(s)));
        const entries = memoFor(fn);
        return (s) => memoised(entries, helper, args.map((f) => f(s)));
      }
    }
  }
  if (fn === "matches" && args.length === 1) {
    const p = rawArgs[0]!.exprKind;
    if (p.case === "constExpr" && p.value.constantKind.case === "stringValue") {
      // A literal pattern (the guards require one) is compiled once, when the rule is.
      let re;
      try {
        re = cachingRe2.compile(p.value.constantKind.value);
      } catch {
        return undefined;
      }
      const pattern = p.value.constantKind.value;
      if (pattern === String.raw`\S`) return (s) => hasNonSpace(str(target(s)));
      const literals = literalPlan(pattern);
      const starts = startPlan(pattern);
      if (!literals && !starts) return (s) => re.test(str(target(s)));
      return (s) => {
        const text = str(target(s));
        return (literals && literalVerdict(literals, text)) ?? (starts && startVerdict(starts, text)) ?? re.test(text);
      };
    }
    return undefined;
  }
  if (fn === "size" && args.length === 0) return compileCall("size", undefined, [target], [], env);
  // String tests a rule builds from data (tool_text.contains(module + '/')): substring semantics, as CEL's.
  if (args.length === 1 && (fn === "contains" || fn === "startsWith" || fn === "endsWith")) {
    const test = fn === "contains" ? (x: string, y: string) => x.includes(y) : fn === "startsWith" ? (x: string, y: string) => x.startsWith(y) : (x: string, y: string) => x.endsWith(y);
    return (s) => test(str(target(s)), str(a!(s)));
  }
  return undefined;
}

/**
 * `repeat_run(text) >= K` with a literal K asks only whether some run reaches K, which a probe every
 * few characters answers (repeatRunAtLeast) without measuring every run of every period.
 */
function repeatRunThreshold([left, right]: Expr[], env: Env): Fn | undefined {
  if (left?.exprKind.case !== "callExpr" || right?.exprKind.case !== "constExpr") return undefined;
  const call = left.exprKind.value;
  const k = right.exprKind.value.constantKind;
  if (call.function !== "repeat_run" || call.target || call.args.length !== 1 || k.case !== "int64Value") return undefined;
  const text = build(call.args[0]!, env);
  if (!text) return undefined;
  const min = Number(k.value);
  return (s) => repeatRunAtLeast(str(text(s)), min);
}

function outer(s: Scope, depth: number): Scope {
  let x = s;
  for (let i = 0; i < depth; i++) x = (x as Frame).up;
  return x;
}

function build(e: Expr, env: Env): Fn | undefined {
  const k = e.exprKind;
  switch (k.case) {
    case "constExpr": {
      const c = k.value.constantKind;
      switch (c.case) {
        case "stringValue":
        case "boolValue":
        case "int64Value":
        case "doubleValue": {
          const v = c.value;
          return () => v;
        }
        default:
          return undefined;
      }
    }
    case "identExpr": {
      const name = k.value.name;
      for (let d = 0; d < env.length; d++) {
        const frame = env[env.length - 1 - d]!;
        const slot = frame.iterVar === name ? "it" : frame.accuVar === name ? "acc" : undefined;
        if (slot) return (s) => (outer(s, d) as Frame)[slot];
      }
      // Names were checked against the schema, so no identifier reaches Object.prototype.
      const depth = env.length;
      return (s) => {
        const v = (outer(s, depth) as Record<string, unknown>)[name];
        return v === undefined ? fail() : v;
      };
    }
    case "selectExpr": {
      if (k.value.testOnly || !k.value.operand) return undefined;
      const operand = build(k.value.operand, env);
      if (!operand) return undefined;
      const field = k.value.field;
      return (s) => {
        const o = operand(s);
        if (o === null || typeof o !== "object" || Array.isArray(o) || !Object.hasOwn(o, field)) fail();
        const v = (o as Record<string, unknown>)[field];
        // Record fields of the declared schema are strings, bools and ints; anything else is the interpreter's.
        if (typeof v !== "string" && typeof v !== "boolean" && typeof v !== "bigint") fail();
        return v;
      };
    }
    case "listExpr": {
      if (k.value.optionalIndices.length > 0) return undefined;
      const elems = k.value.elements.map((x) => build(x, env));
      if (elems.some((x) => x === undefined)) return undefined;
      // A list of constants is one value, built once: memoised helpers then see the same list on every call.
      if (k.value.elements.every((x) => x.exprKind.case === "constExpr")) {
        const constant = elems.map((f) => f!({}));
        return () => constant;
      }
      return (s) => elems.map((f) => f!(s));
    }
    case "callExpr": {
      const target = k.value.target ? build(k.value.target, env) : undefined;
      if (k.value.target && !target) return undefined;
      const args = k.value.args.map((x) => build(x, env));
      if (args.some((x) => x === undefined)) return undefined;
      return compileCall(k.value.function, target, args as Fn[], k.value.args, env);
    }
    case "structExpr": {
      // A map literal ({'tail': …, 'run': …}), as evidence is written; messages are refused by the checker.
      if (k.value.messageName !== "") return undefined;
      const entries = k.value.entries.map((en) => (en.keyKind.case === "mapKey" && en.value && !en.optionalEntry ? [build(en.keyKind.value, env), build(en.value, env)] : [undefined, undefined]));
      if (entries.some(([key, value]) => !key || !value)) return undefined;
      return (s) => {
        const out = new Map<unknown, unknown>();
        for (const [key, value] of entries) {
          const k = key!(s);
          // A repeated key is CEL's error, which the interpreter reports.
          if (out.has(k)) fail();
          out.set(k, value!(s));
        }
        return out;
      };
    }
    case "comprehensionExpr": {
      const c = k.value;
      if (c.iterVar2 !== "") return undefined;
      const { iterVar, accuVar } = c;
      const inner: Env = [...env, { iterVar, accuVar }];
      const parts = [c.iterRange && build(c.iterRange, env), c.accuInit && build(c.accuInit, env), ...[c.loopCondition, c.loopStep, c.result].map((x) => x && build(x, inner))];
      if (parts.some((x) => x === undefined)) return undefined;
      const [range, init, cond, step, result] = parts as Fn[];
      return (s) => {
        const items = list(range!(s));
        const frame: Frame = { up: s, it: undefined, acc: init!(s) };
        for (const item of items) {
          frame.it = item;
          if (!bool(cond!(frame))) break;
          frame.acc = step!(frame);
        }
        return result!(frame);
      };
    }
    default:
      return undefined;
  }
}

function run(fn: Fn, bindings: Readonly<Record<string, CelInput>>): unknown {
  if (bindings !== memoBindings) {
    memoBindings = bindings;
    generation++;
  }
  return fn(bindings as Scope);
}

export type JsonClosure = (bindings: Readonly<Record<string, CelInput>>) => unknown;

/**
 * The closures of a parsed rule, or undefined when it uses something only the interpreter handles:
 * `value` yields a CEL scalar (a predicate); `json` yields the result as JSON (evidence), lists and
 * maps included, as `celToJson` gives the interpreter's (ints as numbers, keys as strings).
 */
export function compileClosures(expr: Expr): { value: Closure; json: JsonClosure } | undefined {
  const fn = build(expr, []);
  if (!fn) return undefined;
  return {
    value: (bindings) => {
      const v = run(fn, bindings);
      // Lists and maps are built here as plain JS values; as a CEL value they must be CEL's own.
      if (typeof v === "object" || typeof v === "undefined") fail();
      return v as CelValue;
    },
    json: (bindings) => plainToJson(run(fn, bindings)),
  };
}

function plainToJson(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(plainToJson);
  const out: Record<string, unknown> = {};
  if (v instanceof Map) for (const [k, val] of v) out[String(k)] = plainToJson(val);
  else if (typeof v === "object") for (const [k, val] of Object.entries(v)) out[k] = plainToJson(val);
  else fail();
  return out;
}
