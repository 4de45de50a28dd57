import type { Expr } from "./ast.ts";
import type { Overload } from "./stdlib.ts";
import { assignable, isNumeric, T, typeName, unify, type CelT, type VariableSchema } from "./types.ts";

export class CheckError extends Error {}

export interface CheckEnv {
  variables: VariableSchema;
  functions: Readonly<Record<string, readonly Overload[]>>;
}

/**
 * Static type check of a parsed rule against declared variables and functions. @bufbuild/cel does
 * not export its checker, and ours must know our helpers and the rollout's declared fields anyway.
 * Throws CheckError naming the first problem.
 */
export function checkExpr(e: Expr, env: CheckEnv, scope: ReadonlyMap<string, CelT> = new Map()): CelT {
  const k = e.exprKind;
  switch (k.case) {
    case "constExpr": {
      const c = k.value.constantKind.case;
      if (c === "int64Value") return T.int;
      if (c === "uint64Value") return T.uint;
      if (c === "doubleValue") return T.double;
      if (c === "stringValue") return T.string;
      if (c === "boolValue") return T.bool;
      if (c === "bytesValue") return T.bytes;
      if (c === "nullValue") return T.null;
      throw new CheckError(`unsupported constant ${String(c)}`);
    }
    case "identExpr": {
      const t = scope.get(k.value.name) ?? env.variables[k.value.name];
      if (!t) throw new CheckError(`undeclared reference to '${k.value.name}'`);
      return t;
    }
    case "selectExpr": {
      const operand = checkExpr(k.value.operand!, env, scope);
      const field = fieldType(operand, k.value.field);
      return k.value.testOnly ? T.bool : field;
    }
    case "callExpr":
      return checkCall(k.value.function, k.value.target, k.value.args, env, scope);
    case "listExpr": {
      const types = k.value.elements.map((x) => checkExpr(x, env, scope));
      return T.list(types.reduce<CelT | undefined>((acc, t) => (acc ? unify(acc, t) : t), undefined) ?? T.dyn);
    }
    case "structExpr": {
      if (k.value.messageName !== "") throw new CheckError(`message construction (${k.value.messageName}) is not allowed`);
      let key: CelT | undefined;
      let value: CelT | undefined;
      for (const en of k.value.entries) {
        if (en.keyKind.case !== "mapKey" || !en.value) throw new CheckError("malformed map literal");
        const kt = checkExpr(en.keyKind.value, env, scope);
        const vt = checkExpr(en.value, env, scope);
        key = key ? unify(key, kt) : kt;
        value = value ? unify(value, vt) : vt;
      }
      return T.map(key ?? T.dyn, value ?? T.dyn);
    }
    case "comprehensionExpr": {
      const c = k.value;
      const range = checkExpr(c.iterRange!, env, scope);
      const [first, second] = iterationTypes(range);
      const inner = new Map(scope);
      inner.set(c.iterVar, first);
      if (c.iterVar2) inner.set(c.iterVar2, second);
      inner.set(c.accuVar, checkExpr(c.accuInit!, env, scope));
      if (c.loopCondition) checkExpr(c.loopCondition, env, inner);
      if (c.loopStep) inner.set(c.accuVar, unify(inner.get(c.accuVar)!, checkExpr(c.loopStep, env, inner)));
      return c.result ? checkExpr(c.result, env, inner) : T.dyn;
    }
    default:
      throw new CheckError("empty expression");
  }
}

function fieldType(operand: CelT, field: string): CelT {
  switch (operand.kind) {
    case "record": {
      const t = operand.fields[field];
      if (!t) throw new CheckError(`${operand.name} has no field '${field}'`);
      return t;
    }
    case "map":
      if (!assignable(operand.key, T.string)) throw new CheckError(`cannot select '${field}' from ${typeName(operand)}`);
      return operand.value;
    case "dyn":
      return T.dyn;
    default:
      throw new CheckError(`cannot select '${field}' from ${typeName(operand)}`);
  }
}

function iterationTypes(range: CelT): [CelT, CelT] {
  switch (range.kind) {
    case "list":
      return [range.elem, range.elem];
    case "map":
      return [range.key, range.value];
    case "record":
      return [T.string, T.dyn];
    case "dyn":
      return [T.dyn, T.dyn];
    default:
      throw new CheckError(`cannot iterate over ${typeName(range)}`);
  }
}

const COMPARISONS = new Set(["_<_", "_<=_", "_>_", "_>=_"]);
const ARITHMETIC = new Set(["_-_", "_*_", "_/_"]);

function checkCall(
  fn: string,
  targetExpr: Expr | undefined,
  argExprs: readonly Expr[],
  env: CheckEnv,
  scope: ReadonlyMap<string, CelT>,
): CelT {
  const target = targetExpr ? checkExpr(targetExpr, env, scope) : undefined;
  const args = argExprs.map((a) => checkExpr(a, env, scope));
  const [a, b, c] = args;
  const fail = (): never => {
    const shown = [...(target ? [target] : []), ...args].map(typeName).join(", ");
    throw new CheckError(`no overload of '${displayName(fn)}' accepts (${shown})`);
  };
  const isDyn = (t: CelT | undefined) => t?.kind === "dyn";

  if (fn === "_&&_" || fn === "_||_") {
    if (!assignable(T.bool, a!) || !assignable(T.bool, b!)) fail();
    return T.bool;
  }
  if (fn === "!_" || fn === "@not_strictly_false") {
    if (!assignable(T.bool, a!)) fail();
    return T.bool;
  }
  if (fn === "-_") {
    if (!(isNumeric(a!) || isDyn(a)) || a!.kind === "uint") fail();
    return a!;
  }
  if (fn === "_==_" || fn === "_!=_") return T.bool;
  if (COMPARISONS.has(fn)) {
    const ok = isDyn(a) || isDyn(b) || (isNumeric(a!) && isNumeric(b!)) || (a!.kind === b!.kind && ["string", "bool", "bytes"].includes(a!.kind));
    if (!ok) fail();
    return T.bool;
  }
  if (fn === "_+_") {
    if (isDyn(a) || isDyn(b)) return isDyn(a) ? b! : a!;
    if (a!.kind === "list" && b!.kind === "list") return unify(a!, b!);
    if (a!.kind !== b!.kind || !["int", "uint", "double", "string", "bytes"].includes(a!.kind)) fail();
    return a!;
  }
  if (ARITHMETIC.has(fn) || fn === "_%_") {
    if (isDyn(a) || isDyn(b)) return isDyn(a) ? b! : a!;
    const allowed = fn === "_%_" ? ["int", "uint"] : ["int", "uint", "double"];
    if (a!.kind !== b!.kind || !allowed.includes(a!.kind)) fail();
    return a!;
  }
  if (fn === "_?_:_") {
    if (!assignable(T.bool, a!)) fail();
    return unify(b!, c!);
  }
  if (fn === "_[_]") {
    if (a!.kind === "list") {
      if (!assignable(T.int, b!) && b!.kind !== "uint") fail();
      return a!.elem;
    }
    if (a!.kind === "map") {
      if (!assignable(a!.key, b!)) fail();
      return a!.value;
    }
    if (a!.kind === "record" || isDyn(a)) return T.dyn;
    return fail();
  }
  if (fn === "@in") {
    if (!(isDyn(b) || b!.kind === "list" || b!.kind === "map" || b!.kind === "record")) fail();
    return T.bool;
  }

  const overloads = env.functions[fn];
  if (!overloads) throw new CheckError(`unknown function '${fn}'`);
  const match = overloads.find(
    (o) =>
      (o.receiver === undefined) === (target === undefined) &&
      (o.receiver === undefined || assignable(o.receiver, target!)) &&
      o.args.length === args.length &&
      o.args.every((p, i) => assignable(p, args[i]!)),
  );
  return match ? match.result : fail();
}

function displayName(fn: string): string {
  return fn.replace(/^_(.*)_$/, "$1").replace(/^@/, "");
}
