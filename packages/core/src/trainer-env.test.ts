import { describe, expect, it } from "vitest";
import { resolveTrainerEnv, trainerEnvSchema } from "./trainer-env.ts";

describe("trainer.env", () => {
  it("passes literals as they are and the worker's variables by name", () => {
    const spec = trainerEnvSchema.parse({ HF_HUB_OFFLINE: "1", HF_TOKEN: { fromWorker: "HF_TOKEN" }, LD_LIBRARY_PATH: { fromWorker: "CUDA_LIBS" } });
    expect(resolveTrainerEnv(spec, { HF_TOKEN: "hf_secret", CUDA_LIBS: "/usr/local/cuda/lib64", OTHER: "x" })).toEqual({
      ok: true,
      env: { HF_HUB_OFFLINE: "1", HF_TOKEN: "hf_secret", LD_LIBRARY_PATH: "/usr/local/cuda/lib64" },
    });
  });

  it("names a variable the worker does not have, never its (absent) value", () => {
    const spec = trainerEnvSchema.parse({ HF_TOKEN: { fromWorker: "HF_TOKEN" } });
    expect(resolveTrainerEnv(spec, {})).toEqual({ ok: false, message: "trainer.env.HF_TOKEN asks for the worker's HF_TOKEN, which the worker's environment does not set" });
  });

  it("refuses a name a shell could not take", () => {
    expect(trainerEnvSchema.safeParse({ "HF-TOKEN": "x" }).success).toBe(false);
    expect(trainerEnvSchema.safeParse({ A: { fromWorker: "1X" } }).success).toBe(false);
  });
});
