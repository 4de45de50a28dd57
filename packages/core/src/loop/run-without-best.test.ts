import { describe, expect, it } from "vitest";
import { runWithoutBest } from "./run-without-best.ts";

const failedBase = { version: 0, status: "failed", failure: { failureClass: "config_error", message: "gradient_accumulation_steps must be 1 or more" } };

describe("runWithoutBest", () => {
  it("names the base's failure when every branch failed, not 'no branch was ever promoted'", () => {
    expect(runWithoutBest("running", [failedBase])).toEqual({ status: "failed", error: "every branch failed (1); v0 (the base): config_error: gradient_accumulation_steps must be 1 or more" });
  });

  it("counts the branches by status when some did not fail, and names the earliest failure", () => {
    const later = { version: 2, status: "failed", failure: { failureClass: "crash", message: "exit 1" } };
    const ended = runWithoutBest("running", [later, { version: 1, status: "cancelled", failure: null }]);
    expect(ended).toEqual({ status: "failed", error: "no branch finished training (1 failed, 1 cancelled); v2: crash: exit 1" });
  });

  it("a stop before any branch trained ends the run stopped, not failed", () => {
    expect(runWithoutBest("stopping", [{ version: 0, status: "cancelled", failure: null }])).toEqual({ status: "cancelled", error: null });
  });
});
