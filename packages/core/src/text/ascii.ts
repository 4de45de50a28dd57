const encoder = new TextEncoder();
let bytes = new Uint8Array(4096);
let units = new Uint16Array(1024);
let lastText: string | undefined;
let lastAscii = true;
let lastUnits: Uint8Array | Uint16Array | undefined;

/**
 * The text's UTF-16 code units as a typed array, which V8 indexes faster than `charCodeAt` on a
 * string: for an ASCII text its bytes, written by the native (vectorised) `encodeInto` in about 1 µs
 * per 20 KB, where a regex scan for a non-ASCII character took 11 µs; for any other text, a copy.
 * Several helpers read the same response in turn, so the last text's array is kept. It is reused
 * by the next call with another text: read it before asking about another one.
 */
export function codeUnits(text: string): Uint8Array | Uint16Array {
  return asciiBytes(text) ?? (lastUnits ??= utf16Units(text));
}

/** The text's bytes when it is all ASCII, else undefined; as `codeUnits`, valid until the next text. */
export function asciiBytes(text: string): Uint8Array | undefined {
  return isAscii(text) ? (lastUnits as Uint8Array) : undefined;
}

function utf16Units(text: string): Uint16Array {
  if (units.length < text.length) units = new Uint16Array(Math.max(text.length, 2 * units.length));
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units.subarray(0, text.length);
}

/** Whether a text is all ASCII, where the text helpers take their fast paths. */
export function isAscii(text: string): boolean {
  if (text !== lastText) {
    lastText = text;
    if (bytes.length < text.length) bytes = new Uint8Array(Math.max(text.length, 2 * bytes.length));
    // One byte per code unit only when every character is ASCII; any other stops the encoder short.
    const { read, written } = encoder.encodeInto(text, bytes.subarray(0, text.length));
    lastAscii = read === text.length && written === text.length;
    // A text that is not ASCII is copied only when a helper asks for its code units.
    lastUnits = lastAscii ? bytes.subarray(0, text.length) : undefined;
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
