// Control characters have pictures in Unicode's Control Pictures block: U+2400 + code, DEL at U+2421.
const PICTURES: Record<string, string> = { "\n": "↵", "\t": "⇥", " ": "␣" };

const controlPicture = (ch: string): string => {
  const code = ch.codePointAt(0)!;
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  if (code === 0x7f) return "␡";
  // C1 controls have no picture: their code, as JSON would escape it.
  return `\\u${code.toString(16).padStart(4, "0")}`;
};

/**
 * A token's text as the heat strip prints it: a token that would print nothing (a control byte a
 * small model sampled, a newline, a tab, only spaces, nothing at all) takes visible room instead of an
 * empty-looking cell. Spaces inside a word-like piece stay spaces; the exact text is in the title.
 */
export function visiblePiece(piece: string): string {
  if (piece === "") return "∅";
  const blank = /^[ \t\n]+$/.test(piece);
  return Array.from(piece, (ch) => {
    if (ch === " ") return blank ? PICTURES[" "]! : ch;
    if (PICTURES[ch]) return PICTURES[ch]!;
    return /[\u0000-\u001f\u007f-\u009f]/.test(ch) ? controlPicture(ch) : ch;
  }).join("");
}
