import { createHash } from "node:crypto";

/**
 * A short, stable id for text (a prompt) or a tuple of values: the first 16 hex digits of sha256.
 * Trainer dumps carry no task ids, so a prompt's hash is what keeps the same task the same across
 * steps, files and re-imports.
 */
export function shortHash(...parts: readonly (string | number)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(`${typeof part}:${String(part).length}:${String(part)}\u0000`);
  return hash.digest("hex").slice(0, 16);
}

/**
 * shortHash of the text `pieces` make, without making it: a trajectory's JSON is hundreds of
 * kilobytes, and each string that large costs the heap far more than its pieces do.
 */
export function shortHashOfPieces(pieces: readonly string[]): string {
  const hash = createHash("sha256");
  hash.update(`string:${pieces.reduce((sum, piece) => sum + piece.length, 0)}:`);
  for (const piece of pieces) hash.update(piece);
  hash.update("\u0000");
  return hash.digest("hex").slice(0, 16);
}
