import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyIntervention, defaultRecipe, type ProposerInput } from "@evotrainer/core";
import { FakeLlmServer, PROTOCOL_NAMES, type LlmProtocol } from "../../../../tests/support/fake-llm-server.ts";
import { input, labelled, LOCKED, report } from "../__fixtures__/proposer-input.ts";
import type { LlmCall } from "./llm-call.ts";
import { LlmProposalError } from "./llm-proposal-error.ts";
import { LlmProposer } from "./llm-proposer.ts";
import type { LlmSettings } from "./llm-settings.ts";

const truncated = labelled("truncated", 0.4);
const roundInput: ProposerInput = input({ domain: "math", k: 2, report: report([truncated.finding], { ...truncated.metrics, truncation_rate: 0.4 }), recipe: defaultRecipe() });

const longer = {
  hypothesis: "if the response limit doubles, fewer answers are cut before the final answer",
  targetMetric: "truncation_rate",
  factor: "algo.maxResponseTokens",
  patch: [{ op: "replace", path: "/algo/maxResponseTokens", value: 8192 }],
  expectedEffect: { direction: "down", size: 0.2 },
  falsification: "truncation_rate stays above 0.3",
};
const shaping = {
  hypothesis: "if overlong answers are penalised softly, the policy learns to finish in budget",
  targetMetric: "truncation_rate",
  factor: "reward.overlong",
  patch: [{ op: "replace", path: "/reward/overlong/enabled", value: true }],
  expectedEffect: { direction: "down" },
  falsification: "truncation_rate does not fall",
};
const twoFactors = { ...longer, patch: [...longer.patch, { op: "replace", path: "/algo/temperature", value: 0.8 }] };
const answer = (interventions: unknown[], detectors?: unknown[]) => ({
  diagnosis: "40% of rollouts are truncated before their final answer",
  hypotheses: ["the response limit is too tight"],
  interventions,
  ...(detectors ? { detectors } : {}),
});

describe.each(["openai", "anthropic"] as const)("LlmProposer over %s", (protocol: LlmProtocol) => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await FakeLlmServer.start(protocol, { apiKey: "sk-test" });
  });
  afterAll(() => server.close());

  function proposer(overrides: Partial<LlmSettings> = {}, spentDollars = 0) {
    const calls: LlmCall[] = [];
    const settings: LlmSettings = {
      provider: protocol === "openai" ? "openai-compatible" : "anthropic",
      model: "test-model",
      baseUrl: server.baseUrl,
      apiKey: "sk-test",
      budgetDollars: 5,
      prices: { inputPerMillion: 3, outputPerMillion: 15 },
      timeoutMs: 5_000,
      maxOutputTokens: 8_192,
      evidenceChars: 20_000,
      ...overrides,
    };
    const llm = new LlmProposer({ lockedEvaluation: LOCKED, settings, spentDollars, context: { rollouts: [], labels: [], history: [] }, onCall: async (c) => void calls.push(c) });
    return { llm, calls };
  }

  it(`proposes valid interventions with llm provenance over ${PROTOCOL_NAMES[protocol]}`, async () => {
    const { llm, calls } = proposer();
    server.reply({ kind: "object", object: answer([longer, shaping]) });
    const out = await llm.proposeRound(roundInput);
    expect(out.interventions.map((i) => i.factor)).toEqual(["algo.maxResponseTokens", "reward.overlong"]);
    expect(out.interventions.every((i) => i.provenance.kind === "llm" && i.provenance.ref === "test-model")).toBe(true);
    for (const i of out.interventions) expect(applyIntervention(roundInput.recipe, i, LOCKED).ok).toBe(true);
    expect(calls).toHaveLength(1);
    const usage = server.usages.at(-1)!;
    expect(calls[0]).toMatchObject({ outcome: "ok", attempt: 1, promptVersion: "propose.v1", model: "test-model", usage });
    expect(calls[0]!.dollars).toBeCloseTo((usage.inputTokens * 3 + usage.outputTokens * 15) / 1e6, 12);
  });

  it("sends a refused answer back once with the reason, and throws when the second answer is refused too", async () => {
    const { llm, calls } = proposer();
    const before = server.requests.length;
    server.reply({ kind: "object", object: answer([twoFactors, shaping]) }, { kind: "object", object: answer([longer]) });
    const out = await llm.proposeRound(roundInput);
    expect(out.interventions.map((i) => i.factor)).toEqual(["algo.maxResponseTokens"]);
    const [first, second] = server.requests.slice(before);
    expect(first!.text).not.toContain("multiple_factors");
    expect(second!.text).toContain("intervention 1 (factor algo.maxResponseTokens): multiple_factors: changes 2 factors (algo.maxResponseTokens, algo.temperature)");
    expect(calls.map((c) => [c.attempt, c.outcome])).toEqual([[1, "rejected"], [2, "ok"]]);

    server.reply({ kind: "object", object: answer([twoFactors]) }, { kind: "object", object: answer([twoFactors]) });
    await expect(proposer().llm.proposeRound(roundInput)).rejects.toMatchObject({ reason: "rejected" });
  });

  it("refuses a detector that fails its own cases, and keeps one that passes them", async () => {
    const sound = {
      label: "boxed_twice",
      description: "two boxed answers",
      when: String.raw`response.matches(r'\\boxed\{[^}]*\}[\s\S]*\\boxed\{')`,
      cases: { match: [{ name: "two", rollout: { response: "\\boxed{1} or \\boxed{2}" } }], noMatch: [{ name: "one", rollout: { response: "\\boxed{1}" } }] },
    };
    const wrong = { ...sound, label: "never_right", cases: { match: [{ name: "one box", rollout: { response: "\\boxed{1}" } }], noMatch: sound.cases.noMatch } };
    const { llm } = proposer();
    const before = server.requests.length;
    server.reply({ kind: "object", object: answer([longer], [sound, wrong]) }, { kind: "object", object: answer([longer], [sound]) });
    const out = await llm.proposeRound(roundInput);
    expect(server.requests[before + 1]!.text).toContain('detector never_right: fails its own cases: case "one box" expected a match, got false');
    expect(out.detectors).toMatchObject([{ id: expect.stringMatching(/^llm\.math\.boxed_twice\./), label: "boxed_twice", version: 1, domains: ["math"], validity: false }]);
  });

  it("throws `malformed` on an answer that is not JSON, keeping the raw text and the billed tokens", async () => {
    const { llm, calls } = proposer();
    server.reply({ kind: "text", text: "{ this is not json" });
    await expect(llm.proposeRound(roundInput)).rejects.toMatchObject({ reason: "malformed" });
    expect(calls[0]).toMatchObject({ outcome: "malformed", response: { text: "{ this is not json" }, usage: server.usages.at(-1) });
  });

  it("throws `timeout` when the model does not answer in time", async () => {
    const { llm, calls } = proposer({ timeoutMs: 300 });
    server.reply({ kind: "hang" });
    const error = await llm.proposeRound(roundInput).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmProposalError);
    expect(error).toMatchObject({ reason: "timeout" });
    expect(calls[0]).toMatchObject({ outcome: "timeout", usage: { inputTokens: 0, outputTokens: 0 }, dollars: 0 });
  });

  it("makes no call once the budget is spent, counting its own calls", async () => {
    const before = server.requests.length;
    await expect(proposer({ budgetDollars: 0.5 }, 0.5).llm.proposeRound(roundInput)).rejects.toMatchObject({ reason: "budget" });
    expect(server.requests.length).toBe(before);

    // The first answer spends the budget: its refusal cannot be sent back.
    const { llm, calls } = proposer({ budgetDollars: 1e-9 });
    server.reply({ kind: "object", object: answer([twoFactors]) });
    await expect(llm.proposeRound(roundInput)).rejects.toMatchObject({ reason: "budget" });
    expect(calls).toHaveLength(1);
    expect(server.requests.length).toBe(before + 1);
  });

  it("never sends the API key anywhere but the auth header", () => {
    for (const r of server.requests) expect(r.raw).not.toContain("sk-test");
  });
});
