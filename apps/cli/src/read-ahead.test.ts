import { setImmediate } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readAhead } from "./read-ahead.ts";

async function* numbers(read: number[], failAt?: number) {
  for (let i = 0; i < 10; i++) {
    if (i === failAt) throw new Error(`item ${i} is unreadable`);
    read.push(i);
    yield i;
    await setImmediate();
  }
}

describe("readAhead", () => {
  it("reads while the caller waits, then yields every item once, in order", async () => {
    const read: number[] = [];
    let ready!: () => void;
    const waiting = new Promise<void>((resolve) => (ready = resolve));
    const items = readAhead(numbers(read), waiting);
    // Nothing iterates yet: the reads happen because the caller is waiting.
    while (read.length < 3) await setImmediate();
    ready();
    const seen: number[] = [];
    for await (const item of items) seen.push(item);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(read).toEqual(seen);
  });

  it("reads nothing ahead once the wait is over, and reports a failure at the item that failed", async () => {
    const read: number[] = [];
    const items = readAhead(numbers(read, 4), Promise.resolve());
    const seen: number[] = [];
    await expect(async () => {
      for await (const item of items) seen.push(item);
    }).rejects.toThrow("item 4 is unreadable");
    expect(seen).toEqual([0, 1, 2, 3]);
  });
});
