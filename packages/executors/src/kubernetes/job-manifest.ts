import { createHash } from "node:crypto";
import { classifyExit, exitCodes } from "@evotrainer/contract";
import type { V1Job, V1PodFailurePolicyRule } from "@kubernetes/client-node";
import type { LaunchSpec } from "../executor.ts";
import { jobFiles } from "./job-files.ts";
import type { KubernetesPool } from "./kubernetes-pool.ts";

export const managedByLabel = "app.kubernetes.io/managed-by";
export const managedBySelector = `${managedByLabel}=evotrainer`;
export const jobIdLabel = "evotrainer.io/job-id";
export const attemptLabel = "evotrainer.io/attempt";
/** The label the Job controller puts on its pods. */
export const jobNameLabel = "job-name";
export const trainerContainer = "trainer";
export const artifactsVolume = "artifacts";

const { log, exitCode } = jobFiles;

// `$0` is the work dir, `"$@"` the command. The output goes both to the container log (what
// `kubectl logs` and logTail read) and to job.log on the volume, which outlives the pod; a FIFO
// instead of a pipe keeps the command's own exit code, which the container must exit with since
// the Job's success and its podFailurePolicy read it. As PID 1 the shell would not pass on the
// SIGTERM of a preemption or eviction, so it forwards it: the trainer gets its grace period to
// checkpoint and exit 75 instead of being SIGKILLed.
export const wrapperScript = [
  `cd "$0" || exit 2`,
  `fifo="\${TMPDIR:-/tmp}/evo-log-$$"`,
  `mkfifo "$fifo" || exit 1`,
  `tee -a ${log} < "$fifo" &`,
  `tee=$!`,
  // Trapped before the command starts, so a SIGTERM that comes early is not lost.
  `trap 'trapped=1; [ -n "$pid" ] && kill -TERM $pid 2>/dev/null' TERM`,
  `"$@" > "$fifo" 2>&1 &`,
  `pid=$!`,
  `[ -n "$trapped" ] && kill -TERM $pid`,
  `trapped=`,
  `wait $pid; code=$?`,
  // A trapped signal cuts `wait` short (code 128+15): wait again for the command's own code. 127
  // is what wait says of a command it has already reported.
  `while [ -n "$trapped" ]; do trapped=; wait $pid; again=$?; [ $again -ne 127 ] && code=$again; done`,
  // Processes the command left behind may hold the log open: let tee drain for a moment, no more.
  `( sleep 2; kill $tee 2>/dev/null ) > /dev/null 2>&1 &`,
  `wait $tee; kill $! 2>/dev/null; rm -f "$fifo"`,
  `echo $code > ${exitCode}.tmp && mv ${exitCode}.tmp ${exitCode}`,
  `exit $code`,
].join("\n");

/** The exit codes the contract reserves for failures a rerun repeats (config and data errors). */
export const nonRetriableExitCodes: number[] = Object.values(exitCodes)
  .filter((code) => {
    const exit = classifyExit(code);
    return exit.failureClass !== null && !exit.retriable;
  })
  // The API requires the values in ascending order.
  .sort((a, b) => a - b);

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The Kubernetes Job of one attempt of a job: a DNS-1123 label of at most 63 characters (the Job
 * controller copies it into a label of its pods). Ids that do not map onto one as they are get a
 * hash of the original, so two ids never share a name.
 */
export function jobNameFor(jobId: string, attempt: number): string {
  const suffix = `-a${attempt}`;
  const plain = `evo-${jobId}${suffix}`;
  if (plain.length <= 63 && dnsLabel.test(plain)) return plain;
  const hash = createHash("sha256").update(jobId).digest("hex").slice(0, 10);
  const readable = jobId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 63 - "evo-".length - "-".length - hash.length - suffix.length)
    .replace(/^-+|-+$/g, "");
  return `evo-${readable ? `${readable}-` : ""}${hash}${suffix}`;
}

const podFailureRules: V1PodFailurePolicyRule[] = [
  // First, so a pod that is being preempted or evicted never fails the Job or uses up backoffLimit,
  // whatever its process exits with while it shuts down; the Job controller starts a replacement.
  { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
  // A config or data error fails the same way on every retry: fail the Job at once.
  { action: "FailJob", onExitCodes: { containerName: trainerContainer, operator: "In", values: nonRetriableExitCodes } },
];

/** What every pod of a pool shares, a job's or a probe's: placement, identity and the artifacts volume. */
export function poolPodSettings(pool: KubernetesPool) {
  return {
    restartPolicy: "Never",
    nodeSelector: pool.nodeSelector,
    tolerations: pool.tolerations,
    serviceAccountName: pool.serviceAccountName,
    imagePullSecrets: pool.imagePullSecrets?.map((name) => ({ name })),
    volumes: [{ name: artifactsVolume, persistentVolumeClaim: { claimName: pool.artifacts.claimName } }],
  };
}

/** The batch/v1 Job that runs one attempt of `spec` on `pool`, in `workDir` on the artifacts volume. */
export function jobManifest(pool: KubernetesPool, spec: LaunchSpec, workDir: string): V1Job {
  if (!Number.isFinite(spec.deadlineSeconds) || spec.deadlineSeconds <= 0) {
    throw new RangeError(`job ${spec.jobId} has no time left to run (deadlineSeconds ${spec.deadlineSeconds})`);
  }
  const labels = { [managedByLabel]: "evotrainer", [jobIdLabel]: spec.jobId, [attemptLabel]: String(spec.attempt) };
  const gpus = spec.gpus > 0 ? { "nvidia.com/gpu": String(spec.gpus) } : undefined;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: jobNameFor(spec.jobId, spec.attempt), namespace: pool.namespace, labels },
    spec: {
      backoffLimit: pool.backoffLimit,
      activeDeadlineSeconds: Math.ceil(spec.deadlineSeconds),
      podFailurePolicy: { rules: podFailureRules },
      // A replacement pod starts only once the failed one is gone, so two pods never write the same
      // job directory (the only value allowed with a podFailurePolicy; explicit for older servers).
      podReplacementPolicy: "Failed",
      template: {
        metadata: { labels },
        spec: {
          ...poolPodSettings(pool),
          containers: [
            {
              name: trainerContainer,
              image: pool.image,
              command: ["sh", "-c", wrapperScript, workDir, ...spec.command],
              workingDir: workDir,
              env: Object.entries({ ...spec.env, EVO_JOB_DIR: workDir }).map(([name, value]) => ({ name, value })),
              resources: gpus && { limits: gpus, requests: { ...gpus } },
              volumeMounts: [{ name: artifactsVolume, mountPath: pool.artifacts.mountPath }],
            },
          ],
        },
      },
    },
  };
}
