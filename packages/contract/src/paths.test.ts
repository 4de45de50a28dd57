import { describe, expect, it } from "vitest";
import { parseContractPath, paths } from "./paths.ts";

describe("paths", () => {
  it("lays out every contract file under the output dir", () => {
    const p = paths("/out/job-1");
    expect(p).toMatchObject({
      outputDir: "/out/job-1",
      job: "/out/job-1/job.json",
      metrics: "/out/job-1/metrics.jsonl",
      heartbeat: "/out/job-1/heartbeat.json",
      status: "/out/job-1/status.json",
      checkpointsDir: "/out/job-1/checkpoints",
      latestCheckpoint: "/out/job-1/checkpoints/latest.json",
      evalDir: "/out/job-1/eval",
    });
    expect(p.rolloutsDir("eval")).toBe("/out/job-1/rollouts/eval");
    expect(p.rolloutsFile("train", 12)).toBe("/out/job-1/rollouts/train/step_12.jsonl");
    expect(p.evalFile(0)).toBe("/out/job-1/eval/step_0.json");
  });

  it("gives relative paths for an empty output dir", () => {
    expect(paths("").rolloutsFile("eval", 3)).toBe("rollouts/eval/step_3.jsonl");
  });

  it("rejects steps and splits that would make paths outside the contract", () => {
    expect(() => paths("/o").evalFile(-1)).toThrow(RangeError);
    expect(() => paths("/o").rolloutsFile("train", 1.5)).toThrow(RangeError);
    expect(() => paths("/o").rolloutsFile("../x" as "train", 1)).toThrow();
  });
});

describe("parseContractPath", () => {
  it("parses back every path that paths() makes", () => {
    const p = paths("/out");
    expect(parseContractPath(p.job, "/out")).toEqual({ kind: "job" });
    expect(parseContractPath(p.metrics, "/out")).toEqual({ kind: "metrics" });
    expect(parseContractPath(p.heartbeat, "/out")).toEqual({ kind: "heartbeat" });
    expect(parseContractPath(p.status, "/out")).toEqual({ kind: "status" });
    expect(parseContractPath(p.latestCheckpoint, "/out")).toEqual({ kind: "checkpoint" });
    expect(parseContractPath(p.rolloutsFile("train", 7), "/out")).toEqual({ kind: "rollouts", split: "train", step: 7 });
    expect(parseContractPath(p.rolloutsFile("eval", 4), "/out")).toEqual({ kind: "rollouts", split: "eval", step: 4 });
    expect(parseContractPath(p.evalFile(40), "/out")).toEqual({ kind: "eval", step: 40 });
  });

  it("accepts relative, ./-prefixed and Windows-style paths", () => {
    expect(parseContractPath("rollouts/eval/step_3.jsonl")).toEqual({ kind: "rollouts", split: "eval", step: 3 });
    expect(parseContractPath("./eval/step_5.json")).toEqual({ kind: "eval", step: 5 });
    expect(parseContractPath("rollouts\\train\\step_2.jsonl")).toEqual({ kind: "rollouts", split: "train", step: 2 });
  });

  it("returns null for files that are not part of the contract", () => {
    for (const name of [
      "eval/.step_3.json.123.abc.tmp",
      ".status.json.1.ff.tmp",
      "rollouts/promotion/step_1.jsonl",
      "rollouts/train/step_x.jsonl",
      "rollouts/train/step_1.json",
      "checkpoints/step_10/model.safetensors",
      "toString",
      "constructor",
      "other/job.json",
      "../job.json",
    ]) {
      expect(parseContractPath(name), name).toBeNull();
    }
    expect(parseContractPath("/elsewhere/status.json", "/out")).toBeNull();
  });
});
