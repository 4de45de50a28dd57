import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { miniSweAgentRollout } from "@evotrainer/adapters";
import { compileHarness, DEFAULT_HEALTH_RULES, SWE_DETECTORS } from "@evotrainer/core";
import { pieces } from "./evidence-spans";
import { evidenceQuotes, trajectoryEvidence } from "./trajectory-evidence";

// Real SWE-bench trajectories (mini-swe-agent, Gemini 3 Pro), labelled by the real swe catalog: the
// evidence the dashboard must place is exactly what the detectors write, not a shape made up here.
const REAL = new URL("../../../../../tests/fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", import.meta.url);

function labelledRealTrajectories() {
  const lines = gunzipSync(readFileSync(REAL)).toString("utf8").trim().split("\n");
  const rollouts = lines.map((line, i) => miniSweAgentRollout(JSON.parse(line), { where: `line ${i + 1}` }));
  const compiled = compileHarness({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.rejections));
  const { labels } = compiled.harness.label(rollouts, "swe");
  return { rollouts, labels };
}

describe("evidence in a trajectory", () => {
  it("places every quoting label's evidence of the real SWE trajectories on a turn's text or a tool call", () => {
    const { rollouts, labels } = labelledRealTrajectories();
    const byUid = new Map(rollouts.map((r) => [r.uid, r]));
    const tally = new Map<string, { quoting: number; placed: number }>();
    const unplaced: string[] = [];
    for (const l of labels) {
      // Counts and flags (a number of calls, a finish reason) point at no text; only quotes are placed.
      if (evidenceQuotes(l.evidence).length === 0) continue;
      const t = tally.get(l.label) ?? tally.set(l.label, { quoting: 0, placed: 0 }).get(l.label)!;
      t.quoting++;
      const turns = trajectoryEvidence(byUid.get(l.rolloutUid)!.trajectory, [{ label: l.label, evidence: l.evidence }])!;
      const placed = turns.some((turn) => turn.calls.some((c) => c.labels.includes(l.label)) || pieces(turn.content, turn.spans).some((p) => p.label === l.label));
      if (placed) t.placed++;
      else unplaced.push(`${l.label} on ${l.rolloutUid}: ${JSON.stringify(l.evidence).slice(0, 200)}`);
    }
    console.log([...tally].map(([label, t]) => `${label}: ${t.placed}/${t.quoting} placed`).join("\n"));
    expect(tally.size).toBeGreaterThanOrEqual(2);
    for (const [label, t] of tally) expect(t.placed, `${label}; not placed:\n${unplaced.join("\n")}`).toBe(t.quoting);
  });

  it("marks a quoted span inside a turn and a quoted tool call, and nothing else", () => {
    const trajectory = [
      { role: "assistant", content: "Let me look.", toolCalls: [{ name: "bash", arguments: { command: "git log --all --oneline" } }, { name: "bash", arguments: { command: "ls" } }] },
      { role: "tool", toolName: "bash", content: "bash: foo: command not found\nok" },
    ];
    const turns = trajectoryEvidence(trajectory, [
      { label: "git_history_leak", evidence: { found: true, start: 5, end: 18, text: "git log --all" } },
      { label: "tool_error", evidence: { errors: ["bash: bash: foo: command not found\nok"] } },
    ])!;
    expect(turns[0]!.calls.map((c) => c.labels)).toEqual([["git_history_leak"], []]);
    expect(pieces(turns[1]!.content, turns[1]!.spans)).toEqual([{ text: "bash: foo: command not found\nok", label: "tool_error" }]);
  });
});
