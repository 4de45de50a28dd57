import { join } from "node:path";
import { sshPrivateKeyOf, type Database } from "@evotrainer/db";
import { LocalExecutor, SshExecutor, type Executor } from "@evotrainer/executors";

/** What the pool needs of a job row to find the executor that runs it. */
export interface JobPlace {
  id: string;
  executor: "local" | "ssh" | "kubernetes";
  nodeId: string | null;
  outputUri: string | null;
}

/**
 * One executor per place jobs run: this machine, each SSH node (one connection each, opened on
 * first use with the key resolved then, so the key lives only in this process's memory).
 */
export class ExecutorPool {
  readonly local: LocalExecutor;
  private readonly ssh = new Map<string, { version: number; executor: Promise<SshExecutor> }>();

  constructor(
    private readonly db: Database,
    private readonly jobsDir: string,
    private readonly env: Record<string, string | undefined>,
    private readonly log: (line: string) => void,
  ) {
    this.local = new LocalExecutor(jobsDir);
  }

  async forJob(job: JobPlace): Promise<Executor> {
    switch (job.executor) {
      case "local":
        return this.local;
      case "ssh":
        if (!job.nodeId) throw new Error(`job ${job.id} runs over SSH but has no node yet`);
        return this.sshExecutor(job.nodeId);
      case "kubernetes":
        throw new Error("the Kubernetes executor is not wired into the worker yet: use executor: local or ssh");
    }
  }

  /**
   * Where the control plane keeps a job's files: the job's own directory for local jobs, a mirror
   * that the monitor fills byte range by byte range for jobs on other machines.
   */
  localDirFor(job: JobPlace): string {
    return job.executor === "local" && job.outputUri ? job.outputUri : join(this.jobsDir, "mirror", job.id);
  }

  private async sshExecutor(nodeId: string): Promise<SshExecutor> {
    const node = await this.db.gpuNode.findUniqueOrThrow({ where: { id: nodeId } });
    const version = node.updatedAt.getTime();
    const cached = this.ssh.get(nodeId);
    if (cached?.version === version) return cached.executor;
    // The node's configuration changed (`evotrainer nodes sync`): reconnect with what it says now.
    if (cached) void cached.executor.then((old) => old.close()).catch(() => {});
    const executor = sshPrivateKeyOf(node, this.env).then(
      (privateKey) =>
        new SshExecutor(
          { name: node.name, host: node.host ?? "", port: node.port, user: node.user ?? "", privateKey, workRoot: node.workRoot },
          { log: this.log },
        ),
    );
    this.ssh.set(nodeId, { version, executor });
    executor.catch(() => this.ssh.delete(nodeId));
    return executor;
  }

  async close(): Promise<void> {
    const executors = await Promise.allSettled([...this.ssh.values()].map((entry) => entry.executor));
    await Promise.all(executors.flatMap((result) => (result.status === "fulfilled" ? [result.value.close()] : [])));
    this.ssh.clear();
  }
}
