import type { parse } from "@bufbuild/cel";

/** The parsed CEL AST node type, taken from the parser itself so core depends on @bufbuild/cel only. */
export type Expr = ReturnType<typeof parse>["expr"];

/** Direct sub-expressions of a node, in source order. */
export function children(e: Expr): Expr[] {
  const k = e.exprKind;
  switch (k.case) {
    case "selectExpr":
      return k.value.operand ? [k.value.operand] : [];
    case "callExpr":
      return [...(k.value.target ? [k.value.target] : []), ...k.value.args];
    case "listExpr":
      return k.value.elements;
    case "structExpr":
      return k.value.entries.flatMap((en) => [
        ...(en.keyKind.case === "mapKey" ? [en.keyKind.value] : []),
        ...(en.value ? [en.value] : []),
      ]);
    case "comprehensionExpr": {
      const c = k.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter((x): x is Expr => x !== undefined);
    }
    default:
      return [];
  }
}
