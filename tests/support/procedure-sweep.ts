import { TRPCError } from "@trpc/server";
import { appRouter } from "@evotrainer/api";

/** Every tRPC procedure with the names of its input's fields, enumerated from the router. */
export function procedures(): { path: string; type: "query" | "mutation" | "subscription"; fields: string[] }[] {
  return Object.entries(appRouter._def.procedures).map(([path, procedure]) => {
    const def = (procedure as unknown as { _def: { type: "query" | "mutation" | "subscription"; inputs: { shape?: Record<string, unknown> }[] } })._def;
    return { path, type: def.type, fields: def.inputs.flatMap((s) => Object.keys(s.shape ?? {})) };
  });
}

/** Fields that name a record another organization may own; an `int64` one is a bigint id sent as a string. */
export const ID_FIELDS = ["runId", "branchId", "branchIds", "otherBranchId", "rolloutId", "labelId", "eventId", "jobId", "harnessVersionId", "organizationId", "userId", "invitationId", "id"] as const;
export type IdField = (typeof ID_FIELDS)[number];
const INT64_FIELDS = new Set<string>(["rolloutId", "labelId", "eventId"]);

/** A well-formed value for each other field a procedure may require, so the call passes its schema and reaches the access check. */
const OTHER_FIELDS: Record<string, unknown> = {
  reason: "sweep",
  instructions: "sweep",
  label: "truncated",
  holds: true,
  review: "confirmed",
  taskId: "task-1",
  name: "sweep",
  email: "sweep@example.test",
  role: "viewer",
  kind: "generic",
  url: "https://hooks.example.test/sweep",
  gpuSeconds: 1,
  sealed: false,
  source: "x.jsonl",
  sources: ["x.jsonl"],
  from: { byteOffset: 0, lineNumber: 0 },
  next: { byteOffset: 1, lineNumber: 1, headHash: null },
  lines: [],
  unreadable: [],
  steps: [{ step: 1, data: { loss: 1 } }],
  clusterKey: "sweep",
  detector: { label: "sweep", description: "sweep", when: "true" },
  dir: "laptop:/sweep.jsonl",
  // Where two procedures' fields of one name take different shapes: "path.field".
  "labelReview.import.lines": [{ rolloutUid: "u1", detector: "truncated", verdict: "confirmed", reviewer: "sweep" }],
};

/** The procedure's input with every id field taken from `ids` (a list field gets the ids given), other fields filled. */
export function inputOf(path: string, fields: string[], ids: Partial<Record<IdField, string | string[]>>, others: Record<string, unknown> = {}): Record<string, unknown> | undefined {
  if (fields.length === 0) return undefined;
  const input: Record<string, unknown> = {};
  const values = { ...OTHER_FIELDS, ...others };
  for (const field of fields) {
    if (field in ids) input[field] = ids[field as IdField];
    else if (`${path}.${field}` in values) input[field] = values[`${path}.${field}`];
    else if (field in values) input[field] = values[field];
  }
  // An import names where it goes: the same ids as the rest of the call.
  if (fields.includes("into") && ids.branchId) input.into = { branchId: ids.branchId };
  return input;
}

/** Ids no record has, of each field's kind. */
export function madeUpIds(fields: string[]): Partial<Record<IdField, string | string[]>> {
  const ids: Partial<Record<IdField, string | string[]>> = {};
  for (const field of fields.filter((f): f is IdField => (ID_FIELDS as readonly string[]).includes(f))) {
    const value = INT64_FIELDS.has(field) ? "999999999" : `no-such-${field}`;
    ids[field] = field === "branchIds" ? [value, `${value}-2`] : value;
  }
  return ids;
}

/** A call's outcome as the client sees it: its value, or the error's code and message. */
export async function outcomeOf(call: () => Promise<unknown>): Promise<{ ok: true; value: unknown } | { ok: false; code: string; message: string }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}

/**
 * Where `secrets` appear in a value: a string holding one (names, cuid ids), or a value under an id-like
 * key equal to one (bigint ids are numbers another organization's rows may share as substrings).
 */
export function leaksIn(value: unknown, secrets: { strings: string[]; ids: Set<string> }, at = "$"): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === "string") return secrets.strings.filter((s) => value.includes(s)).map((s) => `${at} holds ${JSON.stringify(s)}`);
  if (typeof value === "bigint" || typeof value === "number") return [];
  if (value instanceof Date) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaksIn(v, secrets, `${at}[${i}]`));
  if (typeof value === "object") {
    return Object.entries(value).flatMap(([key, v]) => {
      const here = `${at}.${key}`;
      const asId = (typeof v === "bigint" || typeof v === "number" || typeof v === "string") && /id$/i.test(key) && secrets.ids.has(String(v)) ? [`${here} is their id ${String(v)}`] : [];
      return [...asId, ...secrets.strings.filter((s) => key.includes(s)).map((s) => `${here}: key holds ${JSON.stringify(s)}`), ...leaksIn(v, secrets, here)];
    });
  }
  return [];
}
