import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { errorSignature, unexplainedFailures } from "@evotrainer/core";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";

const REAL = new URL("../../../../tests/fixtures/real/", import.meta.url);
const REAL_OOS = new URL("../../../../tests/fixtures/real-oos/", import.meta.url);

function miniSweAgentFile(url: URL): Rollout[] {
  const lines = gunzipSync(readFileSync(url)).toString("utf8").trim().split("\n");
  return lines.map((line, i) => miniSweAgentRollout(JSON.parse(line), { where: `line ${i + 1}` }));
}

const rollouts = [...miniSweAgentFile(new URL("mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", REAL)), ...miniSweAgentFile(new URL("mini-swe-agent-gemini-3-pro-oos.jsonl.gz", REAL_OOS))];
const byId = (uid: string) => rollouts.find((r) => r.uid === uid)!;

describe("the failing call of a real trajectory's signature (mini-swe-agent, as imported)", () => {
  it("is never a grep that matched nothing: these unresolved runs' only failed calls were such greps", () => {
    // Each of these failed nowhere else (no exception, no other non-zero exit), so nothing is recorded.
    for (const uid of ["matplotlib__matplotlib-25479", "matplotlib__matplotlib-26466", "sphinx-doc__sphinx-11510"]) {
      expect(byId(uid).reward, uid).toBe(0);
      expect(errorSignature(byId(uid), "swe").key, uid).toBe("no error recorded (finish: Submitted)");
    }
  });

  it("still reads a grep that could not read its file (exit 2) as a failure", () => {
    const grepMissing = byId("scikit-learn__scikit-learn-14710").trajectory!.find((t) => t.role === "tool" && t.content.startsWith("<returncode>2</returncode>") && t.content.includes("grep: "));
    expect(grepMissing).toBeDefined();
    const only = { ...byId("scikit-learn__scikit-learn-14710"), trajectory: byId("scikit-learn__scikit-learn-14710").trajectory!.filter((t) => t.role !== "tool" || t === grepMissing) };
    expect(errorSignature(only, "swe")).toMatchObject({ program: "grep", errorLine: "grep: <path>: No such file or directory" });
  });

  it("names no cluster of the real unresolved runs after grep with no error line", () => {
    const found = unexplainedFailures(rollouts, [], { domain: "swe", successThreshold: 0.5 });
    expect(found.unexplained).toBeGreaterThan(50);
    expect(found.clusters.map((c) => c.key).filter((k) => k.startsWith("$ grep") && k.includes("no error line"))).toEqual([]);
  });
});
