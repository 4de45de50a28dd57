import { describe, expect, it } from "vitest";
import { gpuCharge, jobClock } from "./gpu-charge.ts";

const start = "2026-11-28T10:00:00.000Z";
const at = (seconds: number) => new Date(Date.parse(start) + seconds * 1000).toISOString();

describe("gpuCharge: the job's own clock, never the control plane's", () => {
  it("charges the first look at an attempt its elapsed time on the job clock", () => {
    expect(gpuCharge({ startedAt: null, seconds: 0 }, { startedAt: start, time: at(7.25) })).toEqual({ outcome: "charge", seconds: 7.25, attempt: { startedAt: start, seconds: 7.25 } });
  });

  it("charges a later look only what the clock moved since, however long the worker was away", () => {
    const charged = { startedAt: start, seconds: 3 };
    expect(gpuCharge(charged, { startedAt: start, time: at(10) })).toEqual({ outcome: "charge", seconds: 7, attempt: { startedAt: start, seconds: 10 } });
  });

  it("charges nothing for a second look at the same beat (a restarted worker, a doubled monitor pass)", () => {
    expect(gpuCharge({ startedAt: start, seconds: 10 }, { startedAt: start, time: at(10) })).toEqual({ outcome: "nothing", reason: "already_charged" });
  });

  it("never charges a negative amount, even when the clock went back", () => {
    expect(gpuCharge({ startedAt: start, seconds: 10 }, { startedAt: start, time: at(4) })).toEqual({ outcome: "nothing", reason: "already_charged" });
    expect(gpuCharge({ startedAt: null, seconds: 0 }, { startedAt: start, time: at(-2) })).toEqual({ outcome: "nothing", reason: "already_charged" });
  });

  it("starts a new attempt's account at its own start, keeping what the last one was charged", () => {
    const retry = at(60);
    expect(gpuCharge({ startedAt: start, seconds: 10 }, { startedAt: retry, time: at(65) })).toEqual({ outcome: "charge", seconds: 5, attempt: { startedAt: retry, seconds: 5 } });
  });

  it("charges nothing for the heartbeat an earlier attempt left behind", () => {
    expect(gpuCharge({ startedAt: at(60), seconds: 5 }, { startedAt: start, time: at(10) })).toEqual({ outcome: "nothing", reason: "older_attempt" });
  });

  it("charges nothing before the trainer's first beat", () => {
    expect(gpuCharge({ startedAt: null, seconds: 0 }, null)).toEqual({ outcome: "nothing", reason: "no_clock" });
  });
});

describe("jobClock: the heartbeat's start when it gives one, else the executor's process times", () => {
  const process = { startedAt: at(-1), endedAt: null, now: at(30) };

  it("takes the heartbeat's clock when the beat says when the attempt started", () => {
    expect(jobClock({ startedAt: start, time: at(12) }, process, true)).toEqual({ startedAt: start, time: at(12) });
  });

  it("for a beat without a start, charges the process from its start to the machine's now while it runs", () => {
    expect(jobClock({ time: at(12) }, process, true)).toEqual({ startedAt: at(-1), time: at(30) });
  });

  it("charges a running job nothing before its first beat: a start it beats later must not charge its start-up twice", () => {
    expect(jobClock(null, process, true)).toBeNull();
    const early = gpuCharge({ startedAt: null, seconds: 0 }, jobClock(null, process, true));
    expect(early).toEqual({ outcome: "nothing", reason: "no_clock" });
  });

  it("charges an ended process up to its end record, however late the look comes, with or without a beat", () => {
    expect(jobClock(null, { ...process, endedAt: at(20), now: at(3600) }, false)).toEqual({ startedAt: at(-1), time: at(20) });
    expect(jobClock({ time: at(19) }, { ...process, endedAt: at(20), now: at(3600) }, false)).toEqual({ startedAt: at(-1), time: at(20) });
  });

  it("charges nothing more for a process gone without an end record, nor for one with no recorded start", () => {
    expect(jobClock(null, process, false)).toBeNull();
    expect(jobClock({ time: at(12) }, null, true)).toBeNull();
  });
});
