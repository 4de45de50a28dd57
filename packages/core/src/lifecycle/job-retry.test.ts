import { describe, expect, it } from "vitest";
import { jobRetryRule } from "./job-retry.ts";

describe("jobRetryRule", () => {
  it("retries a retriable failure with a doubling backoff until the attempts are spent", () => {
    expect(jobRetryRule({ retriable: true, attempts: 1, maxAttempts: 3 })).toEqual({ outcome: "retry", delayMs: 2_000 });
    expect(jobRetryRule({ retriable: true, attempts: 2, maxAttempts: 3 })).toEqual({ outcome: "retry", delayMs: 4_000 });
    expect(jobRetryRule({ retriable: true, attempts: 3, maxAttempts: 3 })).toEqual({ outcome: "give_up", reason: "attempts_spent" });
    expect(jobRetryRule({ retriable: true, attempts: 7, maxAttempts: 3 })).toEqual({ outcome: "give_up", reason: "attempts_spent" });
  });

  it("never retries what fails the same way again (a missing interpreter, a refused config)", () => {
    expect(jobRetryRule({ retriable: false, attempts: 1, maxAttempts: 3 })).toEqual({ outcome: "give_up", reason: "not_retriable" });
  });
});
