import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failpoints } from "./failpoints.ts";

const stopped = (promise: Promise<void>) => Promise.race([promise.then(() => false), new Promise<boolean>((resolve) => setImmediate(() => resolve(true)))]);

describe("failpoints", () => {
  it("stop at the n-th hit of whichever armed point comes first, saying which", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "evo-failpoint-")), "reached");
    const at = failpoints("ingest:batch:2,verdict:decided:1", file);
    expect(await stopped(at("step:monitor"))).toBe(false);
    expect(await stopped(at("ingest:batch"))).toBe(false);
    expect(existsSync(file)).toBe(false);
    expect(await stopped(at("ingest:batch"))).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("ingest:batch:2");
  });

  it("cost nothing when unset", async () => {
    expect(await stopped(failpoints(undefined, undefined)("ingest:batch"))).toBe(false);
  });
});
