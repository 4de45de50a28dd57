// The SSH, Kubernetes and Slurm executors (ssh2, @kubernetes/client-node: most of the worker's code) are
// imported from their own subpaths, @evotrainer/executors/ssh-executor, /kubernetes-executor,
// /slurm-executor and /kube-config, when a job first needs one: a bundle holds every file its importers reach through
// this index, so re-exporting them here would load them at every start.
export type * from "./executor.ts";
export { LocalExecutor } from "./local/local-executor.ts";
export { probeHere } from "./local/local-probe.ts";
export { listFiles, readRange, readTail } from "./local/read-range.ts";
export { computeConfigSchema, sshNodeConfigSchema, type ComputeConfig, type SshNodeConfig } from "./compute-config.ts";
export { classifyEndedJob } from "./ended-job.ts";
export type { EndedJob } from "./ended-job.ts";
export type { SshExecutor, SshExecutorOptions } from "./ssh/ssh-executor.ts";
export type { SshNode } from "./ssh/ssh-node.ts";
export { NodeUnreachableError } from "./ssh/node-unreachable.ts";
export { shellJoin, shellQuote } from "./ssh/shell-quote.ts";
export type { KubernetesExecutor } from "./kubernetes/kubernetes-executor.ts";
export type { SlurmExecutor } from "./slurm/slurm-executor.ts";
export { slurmClusterSchema, slurmSettingsSchema, type SlurmCluster, type SlurmClusterConfig } from "./slurm/slurm-cluster.ts";
export { kubernetesPoolSchema, type KubernetesPool, type KubernetesPoolInput } from "./kubernetes/kubernetes-pool.ts";
export { weightsIn, weightsToDelete, type FoundWeights, type JobWeights, type WeightsElsewhere, type WeightsFiles, type WeightsJob, type WeightsOnDisk, type WeightsPlace } from "./job-weights.ts";
export { localWeightsFiles, localWeightsPlace } from "./local/local-weights-files.ts";
export { volumeWeightsPlace } from "./kubernetes/volume-weights-place.ts";
