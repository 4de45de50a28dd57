import { sshPrivateKeyOf, type Database } from "@evotrainer/db";
import { kubernetesPoolSchema, localWeightsPlace, volumeWeightsPlace, type SshExecutor, type WeightsJob, type WeightsPlace } from "@evotrainer/executors";

/**
 * Where `evotrainer gc` reaches a job's directory from the machine it runs on: this disk, a
 * Kubernetes pool's volume where it is mounted here (as on the worker's machine), or the SSH node
 * (or a Slurm cluster's login node), one connection per node with the key its configuration names. Close it when done.
 */
export class WeightsPlaces {
  private readonly ssh = new Map<string, Promise<SshExecutor>>();

  constructor(
    private readonly db: Database,
    private readonly env: Record<string, string | undefined>,
  ) {}

  async open(job: WeightsJob): Promise<WeightsPlace> {
    if (job.executor === "local") return localWeightsPlace(job.outputUri);
    if (!job.nodeId) throw new Error(`job ${job.jobId} ran on ${job.executor} but names no node or pool`);
    const nodeId = job.nodeId;
    const node = await this.db.gpuNode.findUnique({ where: { id: nodeId } });
    if (!node) throw new Error(`the node or pool job ${job.jobId} ran on is no longer configured`);
    if (node.executor === "kubernetes") return volumeWeightsPlace(kubernetesPoolSchema.parse(node.pool), job.outputUri);
    // A Slurm cluster's job root is on its shared filesystem: here when its login is this machine,
    // otherwise on its login node, reached as an SSH node's directory is.
    if (node.executor === "slurm" && !node.host) return localWeightsPlace(job.outputUri);
    let executor = this.ssh.get(nodeId);
    if (!executor) {
      executor = Promise.all([sshPrivateKeyOf(node, this.env), import("@evotrainer/executors/ssh-executor")]).then(
        ([privateKey, { SshExecutor }]) => new SshExecutor({ name: node.name, host: node.host ?? "", port: node.port, user: node.user ?? "", privateKey, workRoot: node.workRoot }),
      );
      this.ssh.set(nodeId, executor);
    }
    return (await executor).weightsPlace(job.outputUri);
  }

  async close(): Promise<void> {
    const executors = await Promise.allSettled(this.ssh.values());
    await Promise.all(executors.flatMap((result) => (result.status === "fulfilled" ? [result.value.close()] : [])));
  }
}
