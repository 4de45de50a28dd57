const NON_ASCII = /[^\x00-\x7f]/;
let lastText: string | undefined;
let lastAscii = true;

/**
 * Whether a text is all ASCII, where the text helpers take their fast paths. Several helpers ask
 * about the same response in turn, so the last answer is kept.
 */
export function isAscii(text: string): boolean {
  if (text !== lastText) {
    lastText = text;
    lastAscii = !NON_ASCII.test(text);
  }
  return lastAscii;
}

let lastFoldText: string | undefined;
let lastFolded: string | undefined;

/** The text lower-cased when it is ASCII (where lower-casing is RE2's case folding), else undefined. */
export function foldedAscii(text: string): string | undefined {
  if (text !== lastFoldText) {
    lastFoldText = text;
    lastFolded = isAscii(text) ? text.toLowerCase() : undefined;
  }
  return lastFolded;
}
