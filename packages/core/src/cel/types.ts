import { CelScalar, listType, mapType, type CelType } from "@bufbuild/cel";

/**
 * The static types our checker reasons about. `record` is a declared shape with known fields: at
 * run time it is a CEL map, but the checker rejects a field the schema does not declare.
 */
export type CelT =
  | { kind: "int" | "uint" | "double" | "bool" | "string" | "bytes" | "null" | "dyn" }
  | { kind: "list"; elem: CelT }
  | { kind: "map"; key: CelT; value: CelT }
  | { kind: "record"; name: string; fields: Readonly<Record<string, CelT>> };

export const T = {
  int: { kind: "int" },
  uint: { kind: "uint" },
  double: { kind: "double" },
  bool: { kind: "bool" },
  string: { kind: "string" },
  bytes: { kind: "bytes" },
  null: { kind: "null" },
  dyn: { kind: "dyn" },
  list: (elem: CelT): CelT => ({ kind: "list", elem }),
  map: (key: CelT, value: CelT): CelT => ({ kind: "map", key, value }),
  record: (name: string, fields: Record<string, CelT>): CelT => ({ kind: "record", name, fields }),
} as const satisfies Record<string, CelT | ((...a: never[]) => CelT)>;

/** Variable declarations a rule is checked against. */
export type VariableSchema = Readonly<Record<string, CelT>>;

export function typeName(t: CelT): string {
  switch (t.kind) {
    case "list":
      return `list(${typeName(t.elem)})`;
    case "map":
      return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case "record":
      return t.name;
    default:
      return t.kind;
  }
}

export function isNumeric(t: CelT): boolean {
  return t.kind === "int" || t.kind === "uint" || t.kind === "double";
}

/** Whether a value of type `actual` may be passed where `expected` is declared (dyn is a wildcard). */
export function assignable(expected: CelT, actual: CelT): boolean {
  if (expected.kind === "dyn" || actual.kind === "dyn") return true;
  switch (expected.kind) {
    case "list":
      return actual.kind === "list" && assignable(expected.elem, actual.elem);
    case "map":
      if (actual.kind === "record") return assignable(expected.key, T.string);
      return actual.kind === "map" && assignable(expected.key, actual.key) && assignable(expected.value, actual.value);
    case "record":
      return actual.kind === "record" && actual.name === expected.name;
    default:
      return expected.kind === actual.kind;
  }
}

/** The common type of two branches or list elements; dyn when they disagree. */
export function unify(a: CelT, b: CelT): CelT {
  if (a.kind === "dyn" || b.kind === "dyn") return T.dyn;
  if (a.kind === "list" && b.kind === "list") return T.list(unify(a.elem, b.elem));
  if (a.kind === "map" && b.kind === "map") return T.map(unify(a.key, b.key), unify(a.value, b.value));
  if (a.kind === "record" && b.kind === "record") return a.name === b.name ? a : T.dyn;
  return a.kind === b.kind ? a : T.dyn;
}

/** The runtime declaration for @bufbuild/cel: records become maps from field name to dyn. */
export function toCelType(t: CelT): CelType {
  switch (t.kind) {
    case "int":
      return CelScalar.INT;
    case "uint":
      return CelScalar.UINT;
    case "double":
      return CelScalar.DOUBLE;
    case "bool":
      return CelScalar.BOOL;
    case "string":
      return CelScalar.STRING;
    case "bytes":
      return CelScalar.BYTES;
    case "null":
      return CelScalar.NULL;
    case "dyn":
      return CelScalar.DYN;
    case "list":
      return listType(toCelType(t.elem) as Parameters<typeof listType>[0]);
    case "map": {
      const key = t.key.kind === "string" ? CelScalar.STRING : t.key.kind === "int" ? CelScalar.INT : CelScalar.DYN;
      return mapType(key, toCelType(t.value));
    }
    case "record":
      return mapType(CelScalar.STRING, CelScalar.DYN);
  }
}
