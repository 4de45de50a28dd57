import { describe, expect, it } from "vitest";
import { runConfigSchema, type RunConfig } from "@evotrainer/core";
import { resolveLlmSettings } from "./llm-settings.ts";

const llm = (settings: unknown): RunConfig["llm"] => runConfigSchema.shape.llm.parse(settings);

describe("resolveLlmSettings", () => {
  it("takes the run's settings, with the API key from the environment only", () => {
    const out = resolveLlmSettings(llm({ model: "qwen", baseUrl: "http://gpu:8000/v1", budgetDollars: 2 }), { EVO_LLM_API_KEY: "sk-1" });
    expect(out).toEqual({
      ok: true,
      settings: {
        provider: "openai-compatible",
        model: "qwen",
        baseUrl: "http://gpu:8000/v1",
        apiKey: "sk-1",
        budgetDollars: 2,
        prices: { inputPerMillion: 0, outputPerMillion: 0 },
        timeoutMs: 120_000,
        maxOutputTokens: 8_192,
        evidenceChars: 40_000,
      },
    });
    expect(() => llm({ model: "qwen", apiKey: "sk-in-config" })).toThrow();
  });

  it("lets EVO_LLM_* fill what the config leaves out and override what it says", () => {
    const out = resolveLlmSettings(llm({ model: "qwen", baseUrl: "http://gpu:8000/v1" }), {
      EVO_LLM_PROVIDER: "anthropic",
      EVO_LLM_MODEL: "claude-x",
      EVO_LLM_BASE_URL: "http://proxy:9000/v1",
      EVO_LLM_API_KEY: "sk-2",
    });
    expect(out).toMatchObject({ ok: true, settings: { provider: "anthropic", model: "claude-x", baseUrl: "http://proxy:9000/v1", apiKey: "sk-2" } });
    expect(resolveLlmSettings(undefined, { EVO_LLM_MODEL: "qwen", EVO_LLM_BASE_URL: "http://gpu:8000/v1", EVO_LLM_API_KEY: "" })).toMatchObject({
      ok: true,
      settings: { model: "qwen", budgetDollars: 5 },
    });
  });

  it("names what is missing", () => {
    expect(resolveLlmSettings(undefined, {})).toEqual({ ok: false, message: "no model: set llm.model in the run config or EVO_LLM_MODEL" });
    expect(resolveLlmSettings(llm({ model: "qwen" }), {})).toEqual({ ok: false, message: "no endpoint: set llm.baseUrl in the run config or EVO_LLM_BASE_URL" });
    expect(resolveLlmSettings(llm({ provider: "anthropic", model: "claude-x" }), {})).toEqual({ ok: false, message: "no API key: set EVO_LLM_API_KEY" });
    expect(resolveLlmSettings(llm({ model: "qwen" }), { EVO_LLM_BASE_URL: "not a url" })).toMatchObject({ ok: false, message: expect.stringContaining("EVO_LLM_BASE_URL") });
  });
});
