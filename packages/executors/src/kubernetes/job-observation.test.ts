import type { Status } from "@evotrainer/contract";
import type { V1Job, V1JobCondition, V1Pod, V1PodCondition } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { classifyFailedJob, jobOutcome } from "./job-observation.ts";

const job = (...conditions: V1JobCondition[]): V1Job => ({ metadata: { name: "evo-j1-a1" }, status: { conditions } });
const failed = (reason: string, message = "") => job({ type: "FailureTarget", status: "True", reason, message }, { type: "Failed", status: "True", reason, message });

let created = 0;
function pod(exitCode: number, reason: string, options: { conditions?: V1PodCondition[]; lastState?: boolean } = {}): V1Pod {
  const terminated = { exitCode, reason };
  created += 1;
  return {
    metadata: { name: `evo-j1-a1-${created}`, creationTimestamp: new Date(Date.UTC(2030, 0, 1, 0, created)) },
    status: {
      phase: "Failed",
      conditions: options.conditions,
      containerStatuses: [
        {
          name: "trainer",
          image: "trainer",
          imageID: "",
          ready: false,
          restartCount: options.lastState ? 1 : 0,
          ...(options.lastState ? { lastState: { terminated }, state: { waiting: { reason: "CrashLoopBackOff" } } } : { state: { terminated } }),
        },
      ],
    },
  };
}

const disruption: V1PodCondition = { type: "DisruptionTarget", status: "True", reason: "EvictionByEvictionAPI", message: "Eviction API: evicting" };

describe("jobOutcome", () => {
  it("reads only the terminal conditions that are True", () => {
    expect(jobOutcome(job({ type: "Complete", status: "True" }))).toBe("succeeded");
    expect(jobOutcome(failed("BackoffLimitExceeded"))).toBe("failed");
    expect(jobOutcome(job({ type: "FailureTarget", status: "True", reason: "BackoffLimitExceeded" }))).toBeNull();
    expect(jobOutcome(job({ type: "Complete", status: "False" }))).toBeNull();
    expect(jobOutcome({ status: { active: 1, failed: 3 } })).toBeNull();
  });
});

describe("classifyFailedJob", () => {
  it("reads an OOMKilled container, also from its last state, as oom, not retriable", () => {
    expect(classifyFailedJob(failed("BackoffLimitExceeded"), [pod(137, "OOMKilled")], null)).toMatchObject({ exitCode: 137, failureClass: "oom", retriable: false });
    expect(classifyFailedJob(failed("PodFailurePolicy"), [pod(137, "OOMKilled", { lastState: true })], null)).toMatchObject({ failureClass: "oom", retriable: false });
  });

  it("does not retry a crash Kubernetes already retried up to its backoffLimit, and retries one it did not", () => {
    expect(classifyFailedJob(failed("BackoffLimitExceeded"), [pod(1, "Error")], null)).toMatchObject({ exitCode: 1, failureClass: "crash", retriable: false });
    expect(classifyFailedJob(failed("SomethingNew"), [pod(1, "Error")], null)).toMatchObject({ failureClass: "crash", retriable: true });
  });

  it("retries a Job failed by a preemption (clusters that count disruptions against backoffLimit)", () => {
    const observation = classifyFailedJob(failed("BackoffLimitExceeded"), [pod(1, "Error"), pod(143, "Error", { conditions: [disruption] })], null);
    expect(observation).toMatchObject({ exitCode: 143, failureClass: "preempted", retriable: true });
    expect(observation.message).toContain("EvictionByEvictionAPI");
  });

  it("reads DeadlineExceeded as deadline_exceeded, not retriable", () => {
    const observation = classifyFailedJob(failed("DeadlineExceeded", "Job was active longer than specified deadline"), [pod(143, "Error")], null);
    expect(observation).toMatchObject({ failureClass: "deadline_exceeded", retriable: false, exitCode: 143 });
    expect(observation.message).toBe("Kubernetes Job evo-j1-a1: DeadlineExceeded (Job was active longer than specified deadline)");
  });

  it("finds the pod whose exit code a FailJob rule matched, even when a newer pod failed otherwise", () => {
    const observation = classifyFailedJob(failed("PodFailurePolicy"), [pod(3, "Error"), pod(143, "Error", { conditions: [disruption] })], null);
    expect(observation).toMatchObject({ exitCode: 3, failureClass: "data_error", retriable: false });
  });

  it("takes the trainer's status.json only when it tells of the same exit", () => {
    const status: Status = { state: "failed", exitCode: 2, failureClass: "config_error", lastStep: null, message: "unknown key algo.lr_schedule" };
    expect(classifyFailedJob(failed("PodFailurePolicy"), [pod(2, "Error")], status)).toMatchObject({ failureClass: "config_error", retriable: false });
    expect(classifyFailedJob(failed("PodFailurePolicy"), [pod(2, "Error")], status).message).toContain("unknown key algo.lr_schedule");
    // A status.json an earlier attempt left behind says nothing about this one's exit 1.
    expect(classifyFailedJob(failed("BackoffLimitExceeded"), [pod(1, "Error")], status).message).not.toContain("unknown key");
  });

  it("still reports a failure whose pods are gone", () => {
    expect(classifyFailedJob(failed("BackoffLimitExceeded"), [], null)).toMatchObject({ exitCode: null, failureClass: "crash", retriable: false, message: expect.stringContaining("its pods are gone") });
  });
});
