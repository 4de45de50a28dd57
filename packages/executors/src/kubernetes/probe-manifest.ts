import type { V1Job } from "@kubernetes/client-node";
import type { ProbeSpec } from "../executor.ts";
import { probeFiles } from "../probe-dir.ts";
import { artifactsVolume, managedByLabel, poolPodSettings, trainerContainer } from "./job-manifest.ts";
import type { KubernetesPool } from "./kubernetes-pool.ts";

export const probeLabel = "evotrainer.io/probe";

const { stdin, stdout, stderr, exitCode } = probeFiles;

// `$0` is the probe's directory on the artifacts volume, `"$@"` its command. Its answer goes to
// files there, which the control plane reads as it reads a job's; the container itself exits 0
// once the answer is written, so a failed Job means the command never got to answer.
export const probeScript = [
  `cd "$0" || exit 2`,
  `"$@" < ${stdin} > ${stdout} 2> ${stderr}`,
  `echo $? > ${exitCode}.tmp && mv ${exitCode}.tmp ${exitCode}`,
].join("\n");

/** The Kubernetes Job of a probe. */
export function probeJobName(spec: ProbeSpec): string {
  return `evo-probe-${spec.id}`;
}

/**
 * A one-pod batch/v1 Job that runs a probe with the pool's image, node selector and tolerations, in
 * `dir` on the artifacts volume: no retry, no GPU, stopped by the API server at the probe's
 * deadline, and deleted by its TTL should the control plane not get to delete it.
 */
export function probeManifest(pool: KubernetesPool, spec: ProbeSpec, dir: string): V1Job {
  const labels = { [managedByLabel]: "evotrainer", [probeLabel]: spec.id };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: probeJobName(spec), namespace: pool.namespace, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: Math.ceil(spec.timeoutSeconds),
      ttlSecondsAfterFinished: 600,
      template: {
        metadata: { labels },
        spec: {
          ...poolPodSettings(pool),
          containers: [
            {
              name: trainerContainer,
              image: pool.image,
              command: ["sh", "-c", probeScript, dir, ...spec.command],
              workingDir: dir,
              volumeMounts: [{ name: artifactsVolume, mountPath: pool.artifacts.mountPath }],
            },
          ],
        },
      },
    },
  };
}
