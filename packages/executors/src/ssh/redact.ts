/**
 * `text` without any piece of `secret`: the whole of it or any of its lines. Libraries rarely echo a
 * key, but an error that did would end up in job records and logs, so every message is filtered.
 */
export function redact(text: string, secret: string): string {
  const pieces = [secret, ...secret.split(/\r?\n/)].map((piece) => piece.trim()).filter((piece) => piece.length >= 8);
  return pieces.reduce((out, piece) => out.replaceAll(piece, "[redacted]"), text);
}
