import { TEXT_KERNEL_WASM } from "./text-kernel.wasm.ts";

// The part of the WebAssembly API used here: this package's libraries (ES2023, Node's types) leave it out.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

/** What wasm/text-kernel.ts exports: pointers and sizes in, counts out. */
interface Kernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  asciiWordKeys(text: number, len: number, lowered: number, masks: number, keys: number): number;
  distinctNgrams(keys: number, count: number, n: number, table: number, bits: number): number;
  repeatRunBytes(text: number, len: number, maxPeriod: number): number;
  repeatRunUnits(text: number, len: number, maxPeriod: number): number;
  repeatRunAtLeastBytes(text: number, len: number, min: number, maxPeriod: number): number;
  repeatRunAtLeastUnits(text: number, len: number, min: number, maxPeriod: number): number;
}

// The kernel's own data stays in the first 64 KiB page; the text and the scratch after it follow.
const TEXT = 65_536;
const PAGE = 65_536;
const align16 = (n: number) => (n + 15) & ~15;

let instance: Kernel | undefined;
function kernel(): Kernel {
  if (!instance) {
    const bytes = Uint8Array.from(atob(TEXT_KERNEL_WASM), (c) => c.charCodeAt(0));
    instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as Kernel;
  }
  return instance;
}

/** The kernel's memory, grown to hold `end` bytes. Growing detaches earlier views: take them after. */
function memoryUpTo(end: number): ArrayBuffer {
  const { memory } = kernel();
  if (memory.buffer.byteLength < end) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
  return memory.buffer;
}

const encoder = new TextEncoder();
let loaded: string | undefined;
let loadedAscii = true;
let unitsLoaded = false;

/**
 * Puts a text in the kernel's memory (its bytes, when it is ASCII) and says whether it is. The
 * encoder is native and vectorised (about 1 µs per 20 KB), and any character outside ASCII stops it
 * short, which is the test. The helpers ask about the same response in turn, so the last text stays.
 */
export function loadText(text: string): boolean {
  if (text !== loaded) {
    loaded = text;
    unitsLoaded = false;
    // Room for the text as UTF-16 too, and 16 zero bytes after its bytes.
    const buffer = memoryUpTo(TEXT + align16(2 * text.length + 16));
    const { read, written } = encoder.encodeInto(text, new Uint8Array(buffer, TEXT, text.length));
    loadedAscii = read === text.length && written === text.length;
    if (loadedAscii) new Uint8Array(buffer, TEXT + text.length, 16).fill(0);
  }
  return loadedAscii;
}

/** Where scratch space starts for the loaded text (past its region), grown to `bytes` of it. */
function scratch(bytes: number): number {
  const start = TEXT + align16(2 * loaded!.length + 16);
  memoryUpTo(start + bytes);
  return start;
}

/** The loaded text's UTF-16 units, copied in place of its bytes when it is not ASCII. */
function loadUnits(text: string): void {
  if (unitsLoaded) return;
  const units = new Uint16Array(memoryUpTo(TEXT + 2 * text.length), TEXT, text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  unitsLoaded = true;
}

/** repeat_run: the longest stretch of one unit of up to `maxPeriod` characters repeated back to back. */
export function kernelRepeatRun(text: string, maxPeriod: number): number {
  if (loadText(text)) return kernel().repeatRunBytes(TEXT, text.length, maxPeriod);
  loadUnits(text);
  return kernel().repeatRunUnits(TEXT, text.length, maxPeriod);
}

/** Whether kernelRepeatRun(text, maxPeriod) >= min. */
export function kernelRepeatRunAtLeast(text: string, min: number, maxPeriod: number): boolean {
  if (loadText(text)) return kernel().repeatRunAtLeastBytes(TEXT, text.length, min, maxPeriod) !== 0;
  loadUnits(text);
  return kernel().repeatRunAtLeastUnits(TEXT, text.length, min, maxPeriod) !== 0;
}

/**
 * Word count and distinct word n-grams of an ASCII text, or undefined when it is not ASCII. Words
 * split on ASCII whitespace, lower-cased, each digit run as one "0".
 */
export function asciiNgramCounts(text: string, n: number): { words: number; distinct: number } | undefined {
  if (!loadText(text)) return undefined;
  const len = text.length;
  const maskBytes = align16(3 * 2 * (((len + 15) >> 4) + 4));
  // A word takes a byte and the whitespace after it.
  const keyBytes = 8 * ((len >> 1) + 2);
  const lowered = scratch(align16(len + 16) + maskBytes + keyBytes);
  const masks = lowered + align16(len + 16);
  const keys = masks + maskBytes;
  const words = kernel().asciiWordKeys(TEXT, len, lowered, masks, keys);
  return { words, distinct: countDistinct(keys, keyBytes, words, n) };
}

/** Distinct n-grams of words given as two 32-bit hashes each (the path for text that is not ASCII). */
export function hashedNgramCount(wordHashes: Int32Array, n: number): number {
  const words = wordHashes.length / 2;
  const keys = scratch(8 * words);
  new Int32Array(kernel().memory.buffer, keys, 2 * words).set(wordHashes);
  return countDistinct(keys, 8 * words, words, n);
}

function countDistinct(keys: number, keyBytes: number, words: number, n: number): number {
  const total = words - n + 1;
  if (total <= 0) return 0;
  let bits = 6;
  while (1 << bits < 2 * total) bits++;
  const table = align16(keys + keyBytes);
  memoryUpTo(table + 8 * (1 << bits));
  return kernel().distinctNgrams(keys, words, n, table, bits);
}
