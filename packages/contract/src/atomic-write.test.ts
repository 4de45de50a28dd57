import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "./atomic-write.ts";
import { readHeartbeat, writeHeartbeat } from "./heartbeat.ts";
import { paths } from "./paths.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "evo-contract-atomic-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Large enough that a plain overwrite takes several write calls, which a concurrent reader would see.
const bigMessage = (i: number) => `beat ${i} `.padEnd(2_000_000, String(i % 10));

describe("writeFileAtomic", () => {
  it("never lets a concurrent reader see a partial file", async () => {
    const writes = 25;
    const beat = (step: number) => ({
      step,
      time: new Date(step).toISOString(),
      phase: "update" as const,
      progress: step / writes,
      message: bigMessage(step),
    });
    await writeHeartbeat(dir, beat(0));
    let writing = true;
    const writer = (async () => {
      for (let i = 1; i <= writes; i++) await writeHeartbeat(dir, beat(i));
      writing = false;
    })();
    const observed = new Set<number>();
    const failures: unknown[] = [];
    let reads = 0;
    const reader = (async () => {
      while (writing && failures.length === 0) {
        try {
          // readHeartbeat throws on a truncated or half-replaced file.
          const beat = await readHeartbeat(dir);
          if (beat === null || beat.message !== bigMessage(beat.step)) failures.push(beat?.step);
          else observed.add(beat.step);
        } catch (error) {
          failures.push(error);
        }
        reads += 1;
      }
    })();
    // Both finish before the checks, so no write is still running when the directory is removed.
    await Promise.all([writer, reader]);
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(5);
    expect(observed.size).toBeGreaterThan(1);
    expect((await readHeartbeat(dir))?.step).toBe(writes);
  });

  it("creates missing directories and leaves no temporary file behind", async () => {
    const file = join(dir, "a", "b", "value.json");
    await writeFileAtomic(file, "{}\n");
    await writeFileAtomic(file, '{"x":1}\n');
    expect(await readFile(file, "utf8")).toBe('{"x":1}\n');
    expect(await readdir(join(dir, "a", "b"))).toEqual(["value.json"]);
  });

  it("keeps the old content and cleans up when the write fails", async () => {
    const file = paths(dir).status;
    await writeFile(file, "old");
    // Renaming a file over a non-empty directory fails after the temporary file was written.
    const blocked = join(dir, "blocked");
    await writeFileAtomic(join(blocked, "inner"), "x");
    await expect(writeFileAtomic(blocked, "new")).rejects.toThrow();
    expect(await readdir(dir)).toEqual(expect.arrayContaining(["blocked", "status.json"]));
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    expect(await readFile(file, "utf8")).toBe("old");
  });
});
