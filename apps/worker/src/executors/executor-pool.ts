import { join } from "node:path";
import { sshPrivateKeyOf, type Database, type GpuNode } from "@evotrainer/db";
import {
  kubernetesPoolSchema,
  LocalExecutor,
  localWeightsPlace,
  volumeWeightsPlace,
  type Executor,
  type KubernetesExecutor,
  type KubernetesPool,
  type SlurmExecutor,
  type SshExecutor,
  type WeightsJob,
  type WeightsPlace,
} from "@evotrainer/executors";
import type { defaultKubeConfig } from "@evotrainer/executors/kube-config";

/** What the pool needs of a job row to find the executor that runs it. */
export interface JobPlace {
  id: string;
  executor: "local" | "ssh" | "kubernetes" | "slurm";
  /** The SSH node, the Kubernetes pool's row, or the Slurm cluster's. */
  nodeId: string | null;
  outputUri: string | null;
  /** Launches so far: each attempt of a remote job gets a mirror of its own. */
  attempts: number;
}

type RemoteExecutor = SshExecutor | KubernetesExecutor | SlurmExecutor;

/**
 * One executor per place jobs run: this machine, each SSH node (one connection each, opened on
 * first use with the key resolved then, so the key lives only in this process's memory), each
 * Kubernetes pool (one informer each, on the cluster of the worker's KUBECONFIG), each Slurm
 * cluster (its login node: this machine, or one SSH connection).
 */
export class ExecutorPool {
  readonly local: LocalExecutor;
  private readonly remote = new Map<string, { version: number; executor: Promise<RemoteExecutor> }>();
  private kubeConfig: ReturnType<typeof defaultKubeConfig> | undefined;

  constructor(
    private readonly db: Database,
    private readonly jobsDir: string,
    private readonly env: Record<string, string | undefined>,
    private readonly log: (line: string) => void,
  ) {
    this.local = new LocalExecutor(jobsDir);
  }

  /**
   * The executor that runs a job, and where the control plane reads the job's files: the job's own
   * directory (local), the shared volume (Kubernetes), or a mirror the monitor fills byte range by
   * byte range (SSH, and Slurm through a login node over SSH; `mirrored`). A Slurm cluster whose
   * login is this machine has its shared filesystem here: the job's own directory. One read of the
   * node's row serves both.
   */
  async open(job: JobPlace): Promise<{ executor: Executor; localDir: string; mirrored: boolean }> {
    if (job.executor === "local") return { executor: this.local, localDir: job.outputUri ?? this.local.workDirFor(job.id), mirrored: false };
    if (!job.nodeId) throw new Error(`job ${job.id} runs on ${job.executor} but has no node or pool yet`);
    const node = await this.db.gpuNode.findUniqueOrThrow({ where: { id: job.nodeId } });
    const pool = node.executor === "kubernetes" ? kubernetesPoolSchema.parse(node.pool) : null;
    const executor = await this.remoteExecutor(node, pool);
    if (pool) return { executor, localDir: join(pool.artifacts.localPath, job.id), mirrored: false };
    if (node.executor === "slurm" && !node.host) return { executor, localDir: executor.workDirFor(job.id), mirrored: false };
    return { executor, localDir: join(this.jobsDir, "mirror", job.id, `attempt-${job.attempts}`), mirrored: true };
  }

  /**
   * Where retention reaches a job's directory: this machine's disk, the pool's volume as the worker
   * mounts it (no pod needed), or the SSH node over the node's shared connection.
   */
  async weightsPlace(job: WeightsJob): Promise<WeightsPlace> {
    if (job.executor === "local") return localWeightsPlace(job.outputUri);
    if (!job.nodeId) throw new Error(`job ${job.jobId} ran on ${job.executor} but names no node or pool`);
    const node = await this.db.gpuNode.findUnique({ where: { id: job.nodeId } });
    if (!node) throw new Error(`the node or pool job ${job.jobId} ran on is no longer configured`);
    const pool = node.executor === "kubernetes" ? kubernetesPoolSchema.parse(node.pool) : null;
    if (pool) return volumeWeightsPlace(pool, job.outputUri);
    return ((await this.remoteExecutor(node, null)) as SshExecutor | SlurmExecutor).weightsPlace(job.outputUri);
  }

  /** The executor of an SSH node or a Kubernetes pool, by its row. */
  onNode(node: GpuNode): Promise<Executor> {
    return this.remoteExecutor(node, node.executor === "kubernetes" ? kubernetesPoolSchema.parse(node.pool) : null);
  }

  private remoteExecutor(node: GpuNode, pool: KubernetesPool | null): Promise<RemoteExecutor> {
    const version = node.updatedAt.getTime();
    const cached = this.remote.get(node.id);
    if (cached?.version === version) return cached.executor;
    // The configuration changed (`evotrainer nodes sync`): reconnect with what it says now.
    if (cached) void cached.executor.then((old) => old.close()).catch(() => {});
    const executor = this.create(node, pool);
    this.remote.set(node.id, { version, executor });
    executor.catch(() => this.remote.delete(node.id));
    return executor;
  }

  // Each remote executor's code (ssh2, the Kubernetes client: most of the worker's) is loaded with the
  // first job that runs there, so a worker that runs jobs on this machine only never parses it.
  private async create(node: GpuNode, pool: KubernetesPool | null): Promise<RemoteExecutor> {
    if (pool) {
      const [kubeConfig, { KubernetesExecutor }] = await Promise.all([import("@evotrainer/executors/kube-config"), import("@evotrainer/executors/kubernetes-executor")]);
      this.kubeConfig ??= kubeConfig.defaultKubeConfig();
      return new KubernetesExecutor(this.kubeConfig, pool, { log: this.log });
    }
    if (node.executor === "slurm") {
      const { connectSlurm } = await import("@evotrainer/executors/slurm-executor");
      const login = node.host ? { name: node.name, host: node.host, port: node.port, user: node.user ?? "", privateKey: await sshPrivateKeyOf(node, this.env), workRoot: node.workRoot } : "local";
      return connectSlurm(node.pool, login, { log: this.log });
    }
    const privateKey = await sshPrivateKeyOf(node, this.env);
    const { SshExecutor } = await import("@evotrainer/executors/ssh-executor");
    return new SshExecutor({ name: node.name, host: node.host ?? "", port: node.port, user: node.user ?? "", privateKey, workRoot: node.workRoot }, { log: this.log });
  }

  async close(): Promise<void> {
    const executors = await Promise.allSettled([...this.remote.values()].map((entry) => entry.executor));
    await Promise.all(executors.flatMap((result) => (result.status === "fulfilled" ? [result.value.close()] : [])));
    this.remote.clear();
  }
}
