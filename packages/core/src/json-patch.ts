import { z } from "zod";
import { parsePointer } from "./json-pointer.ts";

const pointer = z.string().refine((p) => p === "" || p.startsWith("/"), { error: "a JSON pointer starts with /" });

/** RFC 6902 operations. */
export const patchOperationSchema = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("add"), path: pointer, value: z.unknown() }),
  z.strictObject({ op: z.literal("remove"), path: pointer }),
  z.strictObject({ op: z.literal("replace"), path: pointer, value: z.unknown() }),
  z.strictObject({ op: z.literal("move"), from: pointer, path: pointer }),
  z.strictObject({ op: z.literal("copy"), from: pointer, path: pointer }),
  z.strictObject({ op: z.literal("test"), path: pointer, value: z.unknown() }),
]);
export type PatchOperation = z.infer<typeof patchOperationSchema>;
export const jsonPatchSchema = z.array(patchOperationSchema);
export type JsonPatch = z.infer<typeof jsonPatchSchema>;

export type PatchResult =
  | { ok: true; document: unknown }
  | { ok: false; opIndex: number; message: string };

type Container = Record<string, unknown> | unknown[];

class PatchError extends Error {}

/**
 * Applies a patch atomically to a copy of `document`: either every operation applies or the
 * caller learns which one failed and why; the input is never mutated.
 */
export function applyJsonPatch(document: unknown, patch: JsonPatch): PatchResult {
  let doc = clone(document);
  for (const [i, op] of patch.entries()) {
    try {
      doc = applyOperation(doc, op);
    } catch (e) {
      if (e instanceof PatchError) return { ok: false, opIndex: i, message: `${op.op} ${op.path}: ${e.message}` };
      throw e;
    }
  }
  return { ok: true, document: doc };
}

function applyOperation(doc: unknown, op: PatchOperation): unknown {
  switch (op.op) {
    case "add":
      return add(doc, parsePointer(op.path), clone(op.value));
    case "remove":
      return remove(doc, parsePointer(op.path)).doc;
    case "replace": {
      const tokens = parsePointer(op.path);
      get(doc, tokens);
      return add(remove(doc, tokens).doc, tokens, clone(op.value));
    }
    case "move": {
      const from = parsePointer(op.from);
      const to = parsePointer(op.path);
      if (to.length > from.length && from.every((t, i) => t === to[i])) {
        throw new PatchError("cannot move a value into one of its own children");
      }
      const removed = remove(doc, from);
      return add(removed.doc, to, removed.value);
    }
    case "copy":
      return add(doc, parsePointer(op.path), clone(get(doc, parsePointer(op.from))));
    case "test":
      if (!deepEqual(get(doc, parsePointer(op.path)), op.value)) throw new PatchError("test failed");
      return doc;
  }
}

function get(doc: unknown, tokens: readonly string[]): unknown {
  let cur = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      cur = cur[arrayIndex(cur, t, false)];
    } else if (isObject(cur) && Object.hasOwn(cur, t)) {
      cur = cur[t];
    } else {
      throw new PatchError("path does not exist");
    }
  }
  return cur;
}

function parentOf(doc: unknown, tokens: readonly string[]): { parent: Container; key: string } {
  const parent = get(doc, tokens.slice(0, -1));
  if (!Array.isArray(parent) && !isObject(parent)) throw new PatchError("parent is not a container");
  return { parent, key: tokens[tokens.length - 1]! };
}

function add(doc: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens);
  if (Array.isArray(parent)) {
    const i = key === "-" ? parent.length : arrayIndex(parent, key, true);
    parent.splice(i, 0, value);
  } else {
    parent[key] = value;
  }
  return doc;
}

function remove(doc: unknown, tokens: readonly string[]): { doc: unknown; value: unknown } {
  if (tokens.length === 0) return { doc: null, value: doc };
  const { parent, key } = parentOf(doc, tokens);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false);
    const [value] = parent.splice(i, 1);
    return { doc, value };
  }
  if (!Object.hasOwn(parent, key)) throw new PatchError("path does not exist");
  const value = parent[key];
  delete parent[key];
  return { doc, value };
}

function arrayIndex(arr: unknown[], token: string, forInsert: boolean): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`invalid array index ${JSON.stringify(token)}`);
  const i = Number(token);
  if (i > arr.length || (!forInsert && i === arr.length)) throw new PatchError(`array index ${i} out of bounds`);
  return i;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
