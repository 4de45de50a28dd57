import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { SWE_DETECTORS } from "@evotrainer/core";
import { differential } from "../../../core/src/__fixtures__/engine-differential.ts";
import { miniSweAgentRollout } from "./mini-swe-agent.ts";
import { sweAgentRollout } from "./swe-agent.ts";

const REAL = new URL("../../../../tests/fixtures/real/", import.meta.url);

describe("detector engines on real SWE trajectories", () => {
  it("the closure-compiled swe catalog gives the interpreter's labels and evidence on every mini-swe-agent and SWE-agent trajectory", () => {
    const lines = gunzipSync(readFileSync(new URL("mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", REAL))).toString("utf8").trim().split("\n");
    const rollouts = lines.map((line, i) => miniSweAgentRollout(JSON.parse(line), { where: `line ${i + 1}` }));
    for (const file of readdirSync(new URL("swe-agent/", REAL)).filter((f) => f.endsWith(".traj"))) {
      const name = file.replace(/\.traj$/, "");
      rollouts.push(sweAgentRollout(JSON.parse(readFileSync(new URL(`swe-agent/${file}`, REAL), "utf8")), { where: name, instanceId: name }));
    }
    const { mismatches, fallbacks, compared } = differential(SWE_DETECTORS, rollouts);
    expect(mismatches).toEqual([]);
    expect(fallbacks).toBe(0);
    expect(compared).toBeGreaterThanOrEqual(rollouts.length * SWE_DETECTORS.length);
  });
});
