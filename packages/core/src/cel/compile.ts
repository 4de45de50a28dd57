import { celEnv, isCelError, parse, plan, type CelEnv, type CelInput, type CelValue } from "@bufbuild/cel";
import { children, type Expr } from "./ast.ts";
import { celToJson } from "./cel-json.ts";
import { compileClosures } from "./closure.ts";
import { CheckError, checkExpr } from "./checker.ts";
import { ALLOWED_FUNCTIONS, HELPER_FUNCS } from "./functions.ts";
import { cachingRe2 } from "./regex.ts";
import { DEFAULT_RULE_LIMITS, guardProblem, type GuardReason, type RuleLimits } from "./guards.ts";
import { toCelType, typeName, type CelT, type VariableSchema } from "./types.ts";

export type RuleRejectionReason = GuardReason | "too_long" | "parse_error" | "type_error" | "wrong_result_type";

export type EvalResult = { ok: true; value: CelValue } | { ok: false; error: string };

/** A rule that passed every guard: compiled once, evaluated many times. */
export interface CompiledRule {
  source: string;
  resultType: CelT;
  /** Declared variables the rule reads (for evidence: which metrics a health rule looked at). */
  variables: string[];
  /** Literal keys the rule indexes declared maps with, e.g. {label_rate: ["format_error"]}. */
  keys: Record<string, string[]>;
  /** Closure-compiled (true) or interpreted only; `evaluate` falls back to the interpreter per rollout anyway. */
  compiled: boolean;
  evaluate(bindings: Readonly<Record<string, CelInput>>): EvalResult;
  /** The result as JSON (ints as numbers): how evidence is stored. Lists and maps come from the closure too. */
  evaluateJson(bindings: Readonly<Record<string, CelInput>>): { ok: true; json: unknown } | { ok: false; error: string };
  /** The @bufbuild/cel interpreter alone: the reference the closures are tested against. */
  interpret(bindings: Readonly<Record<string, CelInput>>): EvalResult;
}

export type CompileResult =
  | { ok: true; rule: CompiledRule }
  | { ok: false; reason: RuleRejectionReason; message: string };

export interface CompileOptions {
  variables: VariableSchema;
  /** Required result type (detectors and health rules must yield bool). */
  expect?: CelT;
  limits?: Partial<RuleLimits>;
}

const envs = new WeakMap<VariableSchema, CelEnv>();

function envFor(variables: VariableSchema): CelEnv {
  let env = envs.get(variables);
  if (!env) {
    env = celEnv({
      variables: Object.fromEntries(Object.entries(variables).map(([k, t]) => [k, toCelType(t)])),
      funcs: [...HELPER_FUNCS],
      re2: cachingRe2,
    });
    envs.set(variables, env);
  }
  return env;
}

/** Parse, guard, type-check and plan a CEL rule; any failure is a rejection with its reason. */
export function compileRule(source: string, options: CompileOptions): CompileResult {
  const limits = { ...DEFAULT_RULE_LIMITS, ...options.limits };
  if (source.length > limits.maxSourceChars) {
    return { ok: false, reason: "too_long", message: `rule is ${source.length} characters; the limit is ${limits.maxSourceChars}` };
  }
  let expr: Expr;
  try {
    expr = parse(source).expr;
  } catch (e) {
    return { ok: false, reason: "parse_error", message: e instanceof Error ? e.message : String(e) };
  }
  const problem = guardProblem(expr, limits);
  if (problem) return { ok: false, ...problem };

  let resultType: CelT;
  try {
    resultType = checkExpr(expr, { variables: options.variables, functions: ALLOWED_FUNCTIONS });
  } catch (e) {
    if (e instanceof CheckError) return { ok: false, reason: "type_error", message: e.message };
    throw e;
  }
  if (options.expect && resultType.kind !== options.expect.kind && resultType.kind !== "dyn") {
    return { ok: false, reason: "wrong_result_type", message: `rule yields ${typeName(resultType)}; ${typeName(options.expect)} is required` };
  }

  const program = plan(envFor(options.variables), expr);
  const closures = compileClosures(expr);
  const interpret = (bindings: Readonly<Record<string, CelInput>>): EvalResult => {
    const value = program(bindings as Record<string, CelInput>);
    return isCelError(value) ? { ok: false, error: value.message } : { ok: true, value };
  };
  const interpretJson = (bindings: Readonly<Record<string, CelInput>>) => {
    const r = interpret(bindings);
    return r.ok ? { ok: true as const, json: celToJson(r.value) } : r;
  };
  return {
    ok: true,
    rule: {
      source,
      resultType,
      ...references(expr, options.variables),
      compiled: closures !== undefined,
      interpret,
      evaluate: orInterpreter(closures && ((bindings) => ({ ok: true, value: closures.value(bindings) })), interpret),
      evaluateJson: orInterpreter(closures && ((bindings) => ({ ok: true as const, json: closures.json(bindings) })), interpretJson),
    },
  };
}

/** The closure's answer; on a fallback or an error in a helper, the interpreter gives CEL's own answer or message. */
function orInterpreter<R>(closure: ((bindings: Readonly<Record<string, CelInput>>) => R) | undefined, interpret: (bindings: Readonly<Record<string, CelInput>>) => R) {
  if (!closure) return interpret;
  return (bindings: Readonly<Record<string, CelInput>>): R => {
    try {
      return closure(bindings);
    } catch {
      return interpret(bindings);
    }
  };
}

function references(root: Expr, variables: VariableSchema): { variables: string[]; keys: Record<string, string[]> } {
  const found = new Set<string>();
  const keys: Record<string, string[]> = {};
  const visit = (e: Expr) => {
    const k = e.exprKind;
    if (k.case === "identExpr" && Object.hasOwn(variables, k.value.name)) found.add(k.value.name);
    if (k.case === "callExpr" && k.value.function === "_[_]") {
      const [target, key] = k.value.args;
      if (target?.exprKind.case === "identExpr" && key?.exprKind.case === "constExpr" && key.exprKind.value.constantKind.case === "stringValue") {
        (keys[target.exprKind.value.name] ??= []).push(key.exprKind.value.constantKind.value);
      }
    }
    children(e).forEach(visit);
  };
  visit(root);
  return { variables: [...found].sort(), keys };
}
