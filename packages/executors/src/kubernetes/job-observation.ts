import { classifyExit, type Status } from "@evotrainer/contract";
import type { V1ContainerStateTerminated, V1Job, V1JobCondition, V1Pod } from "@kubernetes/client-node";
import type { ExecutorFailureClass, JobObservation, JobTimes } from "../executor.ts";
import { nonRetriableExitCodes, trainerContainer } from "./job-manifest.ts";

type Failed = Extract<JobObservation, { state: "failed" }>;

// A rerun fails the same way: a bad config, bad data, a job too big for its memory.
const notRetriable = new Set<ExecutorFailureClass>(["config_error", "data_error", "oom", "deadline_exceeded"]);

function trueCondition(job: V1Job, type: string): V1JobCondition | undefined {
  return job.status?.conditions?.find((condition) => condition.type === type && condition.status === "True");
}

/**
 * How the Job ended, from its terminal conditions; null while it runs. `FailureTarget` (1.31+) is
 * not terminal yet: the Job's pods are still being stopped, and a retry must not overlap them.
 * `status.failed` is not read: on clusters older than the pod failure policy (or with the
 * PodDisruptionConditions gate off) it also counts preempted pods, which are not failures here.
 */
export function jobOutcome(job: V1Job): "succeeded" | "failed" | null {
  if (trueCondition(job, "Complete")) return "succeeded";
  if (trueCondition(job, "Failed")) return "failed";
  return null;
}

const time = (pod: V1Pod) => new Date(pod.metadata?.creationTimestamp ?? 0).getTime();

/** The Job's pods, newest first. */
export function newestFirst(pods: readonly V1Pod[]): V1Pod[] {
  return [...pods].sort((a, b) => time(b) - time(a));
}

const trainerStatus = (pod: V1Pod) => pod.status?.containerStatuses?.find((container) => container.name === trainerContainer);

/**
 * The trainer container's own start and end in the newest pod, as the kubelet reports them (whole
 * seconds). A pod that replaced a preempted one is a new start: it is charged from there on.
 */
export function trainerTimes(pods: readonly V1Pod[], now: Date): JobTimes | null {
  const pod = newestFirst(pods)[0];
  const state = pod && trainerStatus(pod)?.state;
  const startedAt = state?.terminated?.startedAt ?? state?.running?.startedAt;
  if (!startedAt) return null;
  const finishedAt = state?.terminated?.finishedAt;
  return { startedAt: new Date(startedAt).toISOString(), endedAt: finishedAt ? new Date(finishedAt).toISOString() : null, now: now.toISOString() };
}

/** How the trainer container of `pod` ended, if it did (its last run when it restarted). */
function terminated(pod: V1Pod): V1ContainerStateTerminated | undefined {
  const status = trainerStatus(pod);
  return status?.state?.terminated ?? status?.lastState?.terminated;
}

const oomKilled = (pod: V1Pod) => {
  const status = trainerStatus(pod);
  return status?.state?.terminated?.reason === "OOMKilled" || status?.lastState?.terminated?.reason === "OOMKilled";
};

/** The failure class of one failed pod, with what Kubernetes and the trainer say about it. */
function classifyPod(pod: V1Pod, status: Status | null): { failureClass: ExecutorFailureClass; exitCode: number | null; detail: string } {
  const name = pod.metadata?.name ?? "?";
  const ended = terminated(pod);
  const exitCode = ended?.exitCode ?? null;
  const exitText = exitCode === null ? "no exit code" : `exit code ${exitCode}`;
  const disruption = pod.status?.conditions?.find((condition) => condition.type === "DisruptionTarget" && condition.status === "True");
  if (disruption) {
    const why = [disruption.reason, disruption.message].filter(Boolean).join(": ");
    return { failureClass: "preempted", exitCode, detail: `pod ${name} was disrupted (${why || "DisruptionTarget"}; ${exitText})` };
  }
  // The runtime saw the container killed for memory: certain, unlike a bare SIGKILL; the same job
  // with the same memory runs out again.
  if (oomKilled(pod)) return { failureClass: "oom", exitCode, detail: `pod ${name}: container ${trainerContainer} was OOMKilled (${exitText})` };
  // status.json sits on the volume across attempts: trust it only when it tells of this exit.
  if (status?.state === "failed" && status.failureClass && (status.exitCode === null || status.exitCode === exitCode)) {
    return { failureClass: status.failureClass, exitCode, detail: status.message ?? `pod ${name}: ${exitText}` };
  }
  const exit = classifyExit(exitCode);
  const how = ended?.reason ? `${ended.reason}, ${exitText}` : exitText;
  return { failureClass: exit.failureClass ?? "crash", exitCode, detail: `pod ${name}: ${how}${ended?.message ? `: ${ended.message}` : ""}` };
}

/**
 * Why a Job with a `Failed` condition failed, from the condition's reason and its pods (any order)
 * and the trainer's status.json. Retriable: never after a deadline, or for config/data errors and
 * OOM; not after Kubernetes already spent its own retries (BackoffLimitExceeded); always for a
 * preemption, which says nothing about the job.
 */
export function classifyFailedJob(job: V1Job, pods: readonly V1Pod[], status: Status | null): Failed {
  const condition = trueCondition(job, "Failed");
  const reason = condition?.reason ?? "Failed";
  const summary = `Kubernetes Job ${job.metadata?.name}: ${reason}${condition?.message ? ` (${condition.message})` : ""}`;
  const failedPods = newestFirst(pods).filter((pod) => {
    const exitCode = terminated(pod)?.exitCode;
    return pod.status?.phase === "Failed" || (exitCode !== undefined && exitCode !== 0);
  });

  if (reason === "DeadlineExceeded") {
    const exitCode = failedPods[0] ? (terminated(failedPods[0])?.exitCode ?? null) : null;
    return { state: "failed", exitCode, failureClass: "deadline_exceeded", retriable: false, message: summary };
  }
  // The pod a FailJob rule matched is the one with a reserved exit code, not necessarily the newest.
  const culprit =
    (reason === "PodFailurePolicy" ? failedPods.find((pod) => nonRetriableExitCodes.includes(terminated(pod)?.exitCode ?? 0)) : undefined) ??
    failedPods[0];
  if (!culprit) {
    return { state: "failed", exitCode: null, failureClass: "crash", retriable: reason !== "BackoffLimitExceeded", message: `${summary}; its pods are gone` };
  }
  const { failureClass, exitCode, detail } = classifyPod(culprit, status);
  const retriable = failureClass === "preempted" || (!notRetriable.has(failureClass) && reason !== "BackoffLimitExceeded" && reason !== "PodFailurePolicy");
  return { state: "failed", exitCode, failureClass, retriable, message: `${summary}; ${detail}` };
}
