// The text helpers' inner loops, in AssemblyScript compiled to WebAssembly (with SIMD): a long
// chain of thought is read 16 bytes at a time here, where JavaScript reads one character per step.
// Build: npm run build:kernel -w @evotrainer/core (writes src/text/text-kernel.wasm.ts, which a test
// holds to this file). Every pointer and size comes from src/text/text-kernel.ts, which owns the memory.

const ALL: u64 = 0xffffffffffffffff;

/** MurmurHash3's 64-bit finaliser: a word's bytes spread over every bit of its key. */
@inline function mix(k: u64): u64 {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccd;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53;
  return k ^ (k >> 33);
}

/** The first position at or after i whose bit is set (a mask holds one bit per byte, a u16 per 16 bytes). */
@inline function firstSet(mask: usize, i: i32): i32 {
  while (true) {
    const shift = i & 15;
    const window = load<u64>(mask + (<usize>(i >> 4) << 1)) >> <u64>shift;
    if (window != 0) return i + <i32>ctz(window);
    i += 64 - shift;
  }
}

/** Whether any bit in [start, end) is set. */
@inline function anySet(mask: usize, start: i32, end: i32): bool {
  for (let i = start; i < end; ) {
    const shift = i & 15;
    let window = load<u64>(mask + (<usize>(i >> 4) << 1)) >> <u64>shift;
    const span = end - i;
    if (span < 64 - shift) window &= (<u64>1 << <u64>span) - 1;
    if (window != 0) return true;
    i += 64 - shift;
  }
  return false;
}

/**
 * One 64-bit key per word of an ASCII text (words split on [\t\n\v\f\r ], lower-cased, a digit run
 * as one "0"), written to `keys`; returns how many. The text must be followed by 16 zero bytes.
 * `lowered` takes the lower-cased text, `masks` three bit masks of (blocks + 4) u16 each. A word of
 * up to 8 bytes is its own key (no collision possible); a longer one is hashed 8 bytes at a time.
 */
export function asciiWordKeys(text: usize, len: i32, lowered: usize, masks: usize, keys: usize): i32 {
  const blocks = (len + 15) >> 4;
  const stride = <usize>(blocks + 4) << 1;
  const spaces = masks;
  const starts = masks + stride;
  const digits = masks + 2 * stride;
  const c32 = i8x16.splat(32);
  const c9 = i8x16.splat(9);
  const c4 = i8x16.splat(4);
  const c65 = i8x16.splat(65);
  const c25 = i8x16.splat(25);
  const c48 = i8x16.splat(48);
  for (let b = 0; b < blocks; b++) {
    const at = <usize>b << 4;
    const v = v128.load(text + at);
    const space = v128.or(i8x16.eq(v, c32), i8x16.le_u(i8x16.sub(v, c9), c4));
    const upper = i8x16.le_u(i8x16.sub(v, c65), c25);
    v128.store(lowered + at, i8x16.add(v, v128.and(upper, c32)));
    const bits = i8x16.bitmask(space);
    store<u16>(spaces + (<usize>b << 1), <u16>bits);
    store<u16>(starts + (<usize>b << 1), <u16>~bits);
    store<u16>(digits + (<usize>b << 1), <u16>i8x16.bitmask(i8x16.le_u(i8x16.sub(v, c48), c9)));
  }
  // Past the end is whitespace (the last word ends there) and, so that the search for the next word
  // stops, a word start; the four blocks after cover a 64-bit read from any block.
  if ((len & 15) != 0) {
    const last = spaces + (<usize>(blocks - 1) << 1);
    store<u16>(last, <u16>(<u32>load<u16>(last) | (0xffff << (len & 15))));
  }
  for (let b = blocks; b < blocks + 4; b++) {
    store<u16>(spaces + (<usize>b << 1), 0xffff);
    store<u16>(starts + (<usize>b << 1), 0xffff);
    store<u16>(digits + (<usize>b << 1), 0);
  }
  let count = 0;
  for (let start = firstSet(starts, 0); start < len; start = firstSet(starts, start)) {
    const end = firstSet(spaces, start);
    const size = end - start;
    let key: u64;
    if (anySet(digits, start, end)) {
      // FNV-1a over the word with each digit run as one "0"; a word with a digit never equals one without.
      key = 0xcbf29ce484222325;
      let inDigits = false;
      for (let j = start; j < end; j++) {
        const c = <u32>load<u8>(lowered + j);
        const digit = c - 48 <= 9;
        if (digit && inDigits) continue;
        key = (key ^ <u64>(digit ? 48 : c)) * 0x100000001b3;
        inDigits = digit;
      }
      key = ~key;
    } else if (size <= 8) {
      key = load<u64>(lowered + start) & (ALL >> (<u64>(64 - 8 * size)));
    } else {
      key = <u64>size;
      let j = start;
      for (; j + 8 <= end; j += 8) key = (rotl<u64>(key, 31) ^ load<u64>(lowered + j)) * 0x9e3779b97f4a7c15;
      if (j < end) key = (rotl<u64>(key, 31) ^ (load<u64>(lowered + j) & (ALL >> (<u64>(64 - 8 * (end - j)))))) * 0x9e3779b97f4a7c15;
    }
    store<u64>(keys + (<usize>count << 3), mix(key));
    count++;
    start = end;
  }
  return count;
}

/**
 * Distinct n-grams of `count` word keys, counted in an open-addressing table of 2^bits u64 slots
 * (at least twice the n-grams). Each n-gram's key is polynomial in its words' keys, so the next
 * one's comes from this one in a few multiplications: drop the first word, shift, add the next.
 */
export function distinctNgrams(keys: usize, count: i32, n: i32, table: usize, bits: i32): i32 {
  const total = count - n + 1;
  if (total <= 0) return 0;
  const size: usize = <usize>1 << bits;
  memory.fill(table, 0, size << 3);
  const base: u64 = 0x9e3779b97f4a7c15;
  let top: u64 = 1;
  for (let k = 1; k < n; k++) top *= base;
  let key: u64 = 0;
  for (let k = 0; k < n; k++) key = key * base + load<u64>(keys + (<usize>k << 3));
  let distinct = 0;
  for (let i = 0; i < total; i++) {
    // 0 marks an empty slot.
    const held = key == 0 ? 1 : key;
    let slot = <usize>((held * 0xff51afd7ed558ccd) >> <u64>(64 - bits));
    while (true) {
      const there = load<u64>(table + (slot << 3));
      if (there == 0) {
        store<u64>(table + (slot << 3), held);
        distinct++;
        break;
      }
      if (there == held) break;
      slot = (slot + 1) & (size - 1);
    }
    // The last n-gram has no next one (and its next word would be read past the keys).
    if (i + 1 < total) key = (key - load<u64>(keys + (<usize>i << 3)) * top) * base + load<u64>(keys + (<usize>(i + n) << 3));
  }
  return distinct;
}

// repeat_run over code units of type T (u8 for ASCII bytes, u16 for UTF-16).
@inline function unit<T>(text: usize, i: i32): u32 {
  return <u32>load<T>(text + (<usize>i << alignof<T>()));
}

/** The first position of the stretch around i where the text equals itself shifted by p. */
@inline function stretchStart<T>(text: usize, i: i32, p: i32): i32 {
  while (i > 0 && unit<T>(text, i - 1) == unit<T>(text, i - 1 + p)) i--;
  return i;
}

/** The last position of that stretch. */
@inline function stretchEnd<T>(text: usize, len: i32, i: i32, p: i32): i32 {
  while (i + 1 + p < len && unit<T>(text, i + 1) == unit<T>(text, i + 1 + p)) i++;
  return i;
}

/**
 * Length of the longest stretch made of one unit of up to `maxPeriod` code units repeated back to
 * back. A stretch of period p beats the best so far only with more than `best - p` positions where
 * the text equals itself shifted by p, so only every so many positions is probed, and each stretch
 * a probe lands in is measured whole. The longest period goes first: one match there is worth
 * maxPeriod + 1, so the shorter periods are probed sparsely from the start.
 */
function repeatRunOf<T>(text: usize, len: i32, maxPeriod: i32): i32 {
  let best = 0;
  for (let p = maxPeriod; p >= 1; p--) {
    let need = max(1, best - p + 1);
    for (let i = need - 1; i + p < len; i += need) {
      if (unit<T>(text, i) != unit<T>(text, i + p)) continue;
      const start = stretchStart<T>(text, i, p);
      const end = stretchEnd<T>(text, len, i, p);
      if (end - start + 1 + p > best) {
        best = end - start + 1 + p;
        need = max(1, best - p + 1);
      }
      // The next stretch starts past end + 1 (a mismatch): probing from end + need still lands in any long enough.
      i = end;
    }
  }
  return best;
}

/**
 * Whether repeatRunOf(text) >= min, without measuring every run: a run long enough has `min - p`
 * consecutive positions where the text equals itself shifted by p, and any that many consecutive
 * positions include one of every `min - p`-th, so only those are probed.
 */
function repeatRunAtLeastOf<T>(text: usize, len: i32, min: i32, maxPeriod: i32): bool {
  if (min <= 0) return true;
  for (let p = 1; p <= maxPeriod; p++) {
    const need = max(1, min - p);
    for (let i = need - 1; i + p < len; i += need) {
      if (unit<T>(text, i) != unit<T>(text, i + p)) continue;
      const start = stretchStart<T>(text, i, p);
      const end = stretchEnd<T>(text, len, i, p);
      if (end - start + 1 >= need) return true;
      i = end - ((end - (need - 1)) % need);
    }
  }
  return false;
}

export function repeatRunBytes(text: usize, len: i32, maxPeriod: i32): i32 {
  return repeatRunOf<u8>(text, len, maxPeriod);
}
export function repeatRunUnits(text: usize, len: i32, maxPeriod: i32): i32 {
  return repeatRunOf<u16>(text, len, maxPeriod);
}
export function repeatRunAtLeastBytes(text: usize, len: i32, min: i32, maxPeriod: i32): bool {
  return repeatRunAtLeastOf<u8>(text, len, min, maxPeriod);
}
export function repeatRunAtLeastUnits(text: usize, len: i32, min: i32, maxPeriod: i32): bool {
  return repeatRunAtLeastOf<u16>(text, len, min, maxPeriod);
}
