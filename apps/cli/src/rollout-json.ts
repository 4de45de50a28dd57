import type { Rollout } from "@evotrainer/contract";

// A rollout's JSON is hundreds of kilobytes (its trajectory, and the fields of each message kept in
// `extra`), and an import writes its trajectory's twice: hashed into the uid, then in the line. It
// is written as pieces, never joined into one string: a string that large lands in V8's
// large-object space, where making one costs far more than writing its bytes (fresh pages each time).
const trajectoryPieces = new WeakMap<object, string[]>();

// The rollout field by field and its trajectory turn by turn: splitting deeper costs more in small
// strings than it saves (measured with npm run bench:import).
const PIECE_DEPTH = 2;

/** Whether JSON.stringify leaves out an object's key with this value. */
const leftOut = (item: unknown) => item === undefined || typeof item === "function" || typeof item === "symbol";

/** JSON.stringify(value)'s text as pieces, objects and arrays split into their entries `depth` levels down. */
function writePieces(value: unknown, depth: number, out: string[]): void {
  const whole = depth === 0 || value === null || typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function";
  if (whole) {
    // As JSON.stringify writes an array's element: what has no JSON is null.
    out.push(JSON.stringify(value) ?? "null");
  } else if (Array.isArray(value)) {
    out.push("[");
    for (const [index, item] of value.entries()) {
      if (index > 0) out.push(",");
      writePieces(item, depth - 1, out);
    }
    out.push("]");
  } else {
    out.push("{");
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (leftOut(item)) continue;
      out.push(`${first ? "" : ","}${JSON.stringify(key)}:`);
      first = false;
      writePieces(item, depth - 1, out);
    }
    out.push("}");
  }
}

/** The pieces JSON.stringify(trajectory) is made of, computed once per trajectory object. */
export function trajectoryJsonPieces(trajectory: readonly unknown[]): string[] {
  let pieces = trajectoryPieces.get(trajectory);
  if (pieces === undefined) {
    pieces = [];
    writePieces(trajectory, PIECE_DEPTH - 1, pieces);
    trajectoryPieces.set(trajectory, pieces);
  }
  return pieces;
}

/** A rollout's JSON as pieces, and the pieces of its two largest fields among them. */
export interface RolloutJson {
  pieces: string[];
  fields: { trajectory?: string[]; extra?: string[] };
}

/** The pieces of the rollout's JSON, its trajectory last; one piece for a rollout without one (a trainer's row, small). */
export function rolloutJsonPieces(rollout: Rollout): RolloutJson {
  const { trajectory, ...rest } = rollout;
  if (trajectory === undefined) return { pieces: [JSON.stringify(rest)], fields: {} };
  // writePieces of the object, field by field, keeping where `extra` lies.
  const pieces = ["{"];
  let extra: string[] | undefined;
  for (const [key, item] of Object.entries(rest)) {
    if (leftOut(item)) continue;
    pieces.push(`${pieces.length === 1 ? "" : ","}${JSON.stringify(key)}:`);
    const start = pieces.length;
    writePieces(item, PIECE_DEPTH - 1, pieces);
    if (key === "extra") extra = pieces.slice(start);
  }
  const turns = trajectoryJsonPieces(trajectory);
  pieces.push(pieces.length === 1 ? `"trajectory":` : `,"trajectory":`, ...turns, "}");
  return { pieces, fields: { trajectory: turns, ...(extra ? { extra } : {}) } };
}

/** The pieces concatenated as a rope, which V8 copies into one string only when its characters are read. */
export const ropeOf = (pieces: readonly string[]): string => pieces.reduce((rope, piece) => rope + piece, "");
