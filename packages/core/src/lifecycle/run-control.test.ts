import { describe, expect, it } from "vitest";
import { cancelJobRule, controlRun } from "./run-control.ts";

const budget = 600;

describe("run control", () => {
  it("pauses a running run once; a second pause is answered, not applied", () => {
    expect(controlRun("running", { kind: "pause" }, budget)).toEqual({ outcome: "applied", to: "paused" });
    expect(controlRun("paused", { kind: "pause" }, budget)).toMatchObject({ outcome: "already" });
    expect(controlRun("finishing", { kind: "pause" }, budget)).toMatchObject({ outcome: "refused", message: expect.stringContaining("stop it instead") });
    expect(controlRun("completed", { kind: "pause" }, budget)).toMatchObject({ outcome: "refused" });
  });

  it("resumes only a paused run", () => {
    expect(controlRun("paused", { kind: "resume" }, budget)).toEqual({ outcome: "applied", to: "running" });
    expect(controlRun("running", { kind: "resume" }, budget)).toMatchObject({ outcome: "already" });
    expect(controlRun("stopping", { kind: "resume" }, budget)).toMatchObject({ outcome: "refused" });
  });

  it("stops any live run; stopping a finishing run without its sealed evaluation cancels that too", () => {
    for (const status of ["pending", "running", "paused"] as const) expect(controlRun(status, { kind: "stop", sealed: true }, budget)).toEqual({ outcome: "applied", to: "stopping" });
    expect(controlRun("finishing", { kind: "stop", sealed: true }, budget)).toMatchObject({ outcome: "already" });
    expect(controlRun("finishing", { kind: "stop", sealed: false }, budget)).toEqual({ outcome: "applied", to: "stopping" });
    expect(controlRun("stopping", { kind: "stop", sealed: false }, budget)).toMatchObject({ outcome: "already" });
    expect(controlRun("cancelled", { kind: "stop", sealed: false }, budget)).toMatchObject({ outcome: "already" });
  });

  it("extends a budget to a new, larger total; the same total again changes nothing", () => {
    expect(controlRun("running", { kind: "extend_budget", gpuSeconds: 900 }, budget)).toEqual({ outcome: "applied", to: "running" });
    expect(controlRun("running", { kind: "extend_budget", gpuSeconds: 600 }, budget)).toMatchObject({ outcome: "already" });
    expect(controlRun("running", { kind: "extend_budget", gpuSeconds: 300 }, budget)).toMatchObject({ outcome: "refused", message: expect.stringContaining("only extended") });
    expect(controlRun("completed", { kind: "extend_budget", gpuSeconds: 900 }, budget)).toMatchObject({ outcome: "refused" });
  });

  it("cancels a live training job once, never the sealed evaluation nor a finished job", () => {
    expect(cancelJobRule({ state: "running", kind: "train", cancelRequested: false })).toEqual({ outcome: "applied" });
    expect(cancelJobRule({ state: "running", kind: "train", cancelRequested: true })).toMatchObject({ outcome: "already" });
    expect(cancelJobRule({ state: "cancelled", kind: "train", cancelRequested: true })).toMatchObject({ outcome: "already", message: "the job is already cancelled" });
    expect(cancelJobRule({ state: "running", kind: "eval", cancelRequested: false })).toMatchObject({ outcome: "refused", message: expect.stringContaining("--skip-sealed") });
    expect(cancelJobRule({ state: "succeeded", kind: "train", cancelRequested: false })).toMatchObject({ outcome: "refused" });
  });
});
