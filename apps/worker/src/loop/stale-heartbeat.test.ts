import { describe, expect, it } from "vitest";
import { staleHeartbeat } from "./stale-heartbeat.ts";

const beat = { step: 12, time: "2026-11-22T10:00:00.000Z", phase: "rollout" as const, progress: 0.4 };

describe("staleHeartbeat", () => {
  it("leaves a fresh heartbeat, and a trainer that never writes one, alone", () => {
    expect(staleHeartbeat(beat, new Date("2026-11-22T10:09:59Z"), 600_000)).toBeNull();
    expect(staleHeartbeat(null, new Date("2026-11-23T10:00:00Z"), 600_000)).toBeNull();
  });

  it("names how long the trainer has been silent and where it stopped", () => {
    expect(staleHeartbeat(beat, new Date("2026-11-22T10:10:01Z"), 600_000)).toBe(
      "no heartbeat for 601 s (last: step 12, rollout): the trainer hung, so the job was cancelled",
    );
  });
});
