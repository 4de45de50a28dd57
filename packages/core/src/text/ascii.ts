import { loadText } from "./text-kernel.ts";

/** Whether a text is all ASCII, where the text helpers take their fast paths. */
export function isAscii(text: string): boolean {
  return loadText(text);
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
