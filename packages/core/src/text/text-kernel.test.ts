import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileTextKernel, EMBEDDED, embeddedModule } from "../../scripts/text-kernel-build.ts";

describe("the text kernel", () => {
  it("is embedded as its source compiles (run npm run build:kernel -w @evotrainer/core after editing wasm/text-kernel.ts)", async () => {
    expect(readFileSync(EMBEDDED, "utf8")).toBe(embeddedModule(await compileTextKernel()));
  });
});
