import { describe, expect, it } from "vitest";
import { notificationFor } from "./notification.ts";
import { genericBody, slackBody, webhookBody } from "./payloads.ts";
import { afterFailedAttempt, deliveredOk } from "./retry-schedule.ts";
import { parseSignatureHeader, signatureHeaderValue, signedString } from "./signature.ts";

// Summaries name what a person knows (the run's name, the branch's version), never internal ids.
const names = { runName: "math-gym", branchVersion: 3 };

describe("notifications", () => {
  it("maps the events that notify and ignores the rest", () => {
    expect(notificationFor({ runId: "r1", branchId: "b1", type: "awaiting_decision", payload: {} }, names)).toMatchObject({ kind: "branch_awaiting_decision", path: "/runs/r1/branches/b1" });
    expect(notificationFor({ runId: "r1", type: "run_finished", payload: { sealed: 0.7 } }, names)?.kind).toBe("run_finished");
    expect(notificationFor({ runId: "r1", type: "run_finished", payload: { error: "every branch failed (1); v0 (the base): crash: exit 1" } }, names)).toMatchObject({ kind: "run_failed", summary: "Run math-gym failed: every branch failed (1); v0 (the base): crash: exit 1" });
    expect(notificationFor({ runId: "r1", type: "run_finished", payload: { sealed: null, error: null, stopped: true } }, names)).toMatchObject({ kind: "run_finished", summary: "Run math-gym was stopped before any branch finished training" });
    expect(notificationFor({ runId: "r1", type: "run_paused", payload: {} }, names)?.kind).toBe("run_paused");
    expect(notificationFor({ runId: "r1", type: "run_stopped", payload: { sealed: false } }, names)).toMatchObject({ kind: "run_finished", summary: "Run math-gym was stopped without its sealed evaluation" });
    expect(notificationFor({ runId: "r1", type: "run_stopped", payload: { sealed: true } }, names)).toBeNull();
    expect(notificationFor({ runId: "r1", type: "budget_80", payload: {} }, names)?.kind).toBe("budget_80");
    expect(notificationFor({ runId: "r1", branchId: "b2", type: "failure", payload: { message: "OOM" } }, { runName: "math-gym", branchVersion: 2 })).toMatchObject({ kind: "job_failed", summary: "A job of branch v2 of run math-gym failed for good: OOM" });
    expect(notificationFor({ runId: "r1", type: "job_retry", payload: {} }, names)).toBeNull();
    expect(notificationFor({ runId: "r1", type: "awaiting_decision", payload: {} }, names)).toBeNull();
  });

  it("builds a Slack text with a deep link and a generic body with a stable id", () => {
    const n = notificationFor({ runId: "r1", branchId: "b1", type: "awaiting_decision", payload: {} }, names)!;
    expect(slackBody(n, "https://evo.example/")).toEqual({ text: "Branch v3 of run math-gym awaits a decision <https://evo.example/runs/r1/branches/b1|Open in EvoTrainer>" });
    expect(genericBody(n, "https://evo.example", "o1", "2026-01-01T00:00:00.000Z")).toEqual({
      id: "o1", kind: "branch_awaiting_decision", runId: "r1", branchId: "b1", summary: n.summary, url: "https://evo.example/runs/r1/branches/b1", occurredAt: "2026-01-01T00:00:00.000Z",
    });
    expect(JSON.parse(webhookBody("slack", n, "http://x", "o1", "t"))).toHaveProperty("text");
  });

  it("retries 30 s × 2^n and gives up after the sixth attempt", () => {
    expect([1, 2, 3, 4, 5].map((a) => afterFailedAttempt(a))).toEqual([30, 60, 120, 240, 480].map((s) => ({ outcome: "retry", delayMs: s * 1000 })));
    expect(afterFailedAttempt(6)).toEqual({ outcome: "dead" });
    expect(() => afterFailedAttempt(0)).toThrow(/positive integer/);
    expect(deliveredOk(204)).toBe(true);
    expect(deliveredOk(500)).toBe(false);
  });

  it("signs the time and the body, and reads the header back", () => {
    expect(signedString(1700000000, '{"a":1}')).toBe('1700000000.{"a":1}');
    const header = signatureHeaderValue(1700000000, "a".repeat(64));
    expect(header).toBe(`t=1700000000,v1=${"a".repeat(64)}`);
    expect(parseSignatureHeader(header)).toEqual({ t: 1700000000, v1: "a".repeat(64) });
    expect(parseSignatureHeader("v1=abc")).toBeNull();
  });
});
