import { children, type Expr } from "./ast.ts";
import { ALLOWED_FUNCTIONS, PATTERN_ARGS } from "./functions.ts";
import { re2Problem } from "./regex.ts";

/** Bounds a rule must stay within before it is accepted; together with input caps they bound evaluation cost. */
export interface RuleLimits {
  maxSourceChars: number;
  maxNodes: number;
  maxDepth: number;
  maxPatternChars: number;
}

export const DEFAULT_RULE_LIMITS: RuleLimits = {
  maxSourceChars: 2000,
  maxNodes: 300,
  maxDepth: 32,
  maxPatternChars: 512,
};

export type GuardReason =
  | "too_large"
  | "too_deep"
  | "nested_comprehension"
  | "unknown_function"
  | "bad_pattern";

export interface GuardProblem {
  reason: GuardReason;
  message: string;
}

const OPERATORS = new Set([
  "_&&_", "_||_", "!_", "-_", "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_",
  "_+_", "_-_", "_*_", "_/_", "_%_", "_?_:_", "_[_]", "@in", "@not_strictly_false",
]);

/**
 * Structural checks on a parsed rule, before type checking: AST size and depth, no comprehension
 * inside another's loop (quadratic cost), only allowed functions, regexes as valid literals.
 */
export function guardProblem(root: Expr, limits: RuleLimits): GuardProblem | undefined {
  let nodes = 0;
  let problem: GuardProblem | undefined;

  const visit = (e: Expr, depth: number, inLoop: boolean): void => {
    if (problem) return;
    nodes++;
    if (nodes > limits.maxNodes) {
      problem = { reason: "too_large", message: `rule has more than ${limits.maxNodes} AST nodes (macros count expanded)` };
      return;
    }
    if (depth > limits.maxDepth) {
      problem = { reason: "too_deep", message: `rule nests deeper than ${limits.maxDepth} levels` };
      return;
    }
    const k = e.exprKind;
    if (k.case === "comprehensionExpr") {
      if (inLoop) {
        problem = { reason: "nested_comprehension", message: "a comprehension (all, exists, map, filter…) inside another one's body is not allowed" };
        return;
      }
      const c = k.value;
      if (c.iterRange) visit(c.iterRange, depth + 1, false);
      if (c.accuInit) visit(c.accuInit, depth + 1, false);
      for (const body of [c.loopCondition, c.loopStep, c.result]) if (body) visit(body, depth + 1, true);
      return;
    }
    if (k.case === "callExpr") {
      const fn = k.value.function;
      if (!OPERATORS.has(fn) && !ALLOWED_FUNCTIONS[fn]) {
        problem = { reason: "unknown_function", message: `unknown function '${fn}'` };
        return;
      }
      const patternAt = fn === "matches" ? k.value.args.length - 1 : PATTERN_ARGS[fn];
      if (patternAt !== undefined) {
        const p = patternProblem(k.value.args[patternAt], limits);
        if (p) {
          problem = { reason: "bad_pattern", message: `${fn}: ${p}` };
          return;
        }
      }
    }
    for (const child of children(e)) visit(child, depth + 1, inLoop);
  };

  visit(root, 1, false);
  return problem;
}

// Patterns must be literals so they are vetted once, here, rather than built from rollout text at run time.
function patternProblem(arg: Expr | undefined, limits: RuleLimits): string | undefined {
  const k = arg?.exprKind;
  if (k?.case !== "constExpr" || k.value.constantKind.case !== "stringValue") return "the pattern must be a string literal";
  const pattern = k.value.constantKind.value;
  if (pattern.length > limits.maxPatternChars) return `pattern longer than ${limits.maxPatternChars} characters`;
  const re2 = re2Problem(pattern);
  return re2 === undefined ? undefined : `invalid RE2 pattern: ${re2}`;
}
