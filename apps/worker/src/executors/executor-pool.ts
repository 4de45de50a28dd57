import { join } from "node:path";
import { sshPrivateKeyOf, type Database, type GpuNode } from "@evotrainer/db";
import { defaultKubeConfig, KubernetesExecutor, kubernetesPoolSchema, LocalExecutor, SshExecutor, type Executor } from "@evotrainer/executors";

/** What the pool needs of a job row to find the executor that runs it. */
export interface JobPlace {
  id: string;
  executor: "local" | "ssh" | "kubernetes";
  /** The SSH node, or the Kubernetes pool's row. */
  nodeId: string | null;
  outputUri: string | null;
  /** Launches so far: each attempt of a remote job gets a mirror of its own. */
  attempts: number;
}

type RemoteExecutor = SshExecutor | KubernetesExecutor;

/**
 * One executor per place jobs run: this machine, each SSH node (one connection each, opened on
 * first use with the key resolved then, so the key lives only in this process's memory), each
 * Kubernetes pool (one informer each, on the cluster of the worker's KUBECONFIG).
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

  async forJob(job: JobPlace): Promise<Executor> {
    if (job.executor === "local") return this.local;
    if (!job.nodeId) throw new Error(`job ${job.id} runs on ${job.executor} but has no node or pool yet`);
    return this.remoteExecutor(job.nodeId);
  }

  /**
   * Where the control plane reads a job's files: the job's own directory (local), the shared
   * volume (Kubernetes), or a mirror the monitor fills byte range by byte range (SSH).
   */
  async localDirFor(job: JobPlace): Promise<string> {
    if (job.executor === "local" && job.outputUri) return job.outputUri;
    if (job.executor === "kubernetes" && job.nodeId) {
      const row = await this.db.gpuNode.findUniqueOrThrow({ where: { id: job.nodeId } });
      return join(kubernetesPoolSchema.parse(row.pool).artifacts.localPath, job.id);
    }
    return join(this.jobsDir, "mirror", job.id, `attempt-${job.attempts}`);
  }

  private async remoteExecutor(nodeId: string): Promise<RemoteExecutor> {
    const node = await this.db.gpuNode.findUniqueOrThrow({ where: { id: nodeId } });
    const version = node.updatedAt.getTime();
    const cached = this.remote.get(nodeId);
    if (cached?.version === version) return cached.executor;
    // The configuration changed (`evotrainer nodes sync`): reconnect with what it says now.
    if (cached) void cached.executor.then((old) => old.close()).catch(() => {});
    const executor = this.create(node);
    this.remote.set(nodeId, { version, executor });
    executor.catch(() => this.remote.delete(nodeId));
    return executor;
  }

  private async create(node: GpuNode): Promise<RemoteExecutor> {
    if (node.executor === "kubernetes") {
      this.kubeConfig ??= defaultKubeConfig();
      return new KubernetesExecutor(this.kubeConfig, kubernetesPoolSchema.parse(node.pool), { log: this.log });
    }
    const privateKey = await sshPrivateKeyOf(node, this.env);
    return new SshExecutor({ name: node.name, host: node.host ?? "", port: node.port, user: node.user ?? "", privateKey, workRoot: node.workRoot }, { log: this.log });
  }

  async close(): Promise<void> {
    const executors = await Promise.allSettled([...this.remote.values()].map((entry) => entry.executor));
    await Promise.all(executors.flatMap((result) => (result.status === "fulfilled" ? [result.value.close()] : [])));
    this.remote.clear();
  }
}
