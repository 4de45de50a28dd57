import { spawn, type ChildProcess } from "node:child_process";
import type { FakeKubeApi } from "./fake-kube-api.ts";

interface JobManifest {
  metadata: { name: string };
  spec: { template: { spec: { containers: Array<{ name: string; command: string[]; workingDir: string; env?: Array<{ name: string; value: string }> }> } } };
}

const startTime = "2030-01-01T00:00:01Z";
const runningStatus = [{ name: "trainer", image: "trainer", imageID: "", ready: true, started: true, restartCount: 0, state: { running: { startedAt: startTime } } }];
const endedStatus = (exitCode: number, reason: string) => [
  { name: "trainer", image: "trainer", imageID: "", ready: false, started: false, restartCount: 0, state: { terminated: { exitCode, reason, startedAt: startTime, finishedAt: startTime } } },
];

/**
 * Plays the Job controller and the kubelet for a FakeKubeApi: each Job the executor creates runs
 * its pod's container command as a local process (the test mounts the artifacts volume at the same
 * path on both sides), and the Job's and pod's statuses follow the process as Kubernetes reports
 * them. `preempt` names Jobs whose first pod is evicted (SIGTERM, DisruptionTarget) once `when`
 * says so, after which a replacement pod runs the command again. `runs` picks the Jobs it runs at
 * all; the others stay without pods, as on a cluster with no room for them.
 */
export class FakeKubelet {
  private readonly seen = new Set<string>();
  private readonly children = new Set<ChildProcess>();
  private readonly timer: NodeJS.Timeout;
  readonly preempted: string[] = [];

  constructor(
    private readonly api: FakeKubeApi,
    private readonly namespace: string,
    private readonly preempt: { job: (name: string) => boolean; when: () => Promise<boolean> } | null = null,
    private readonly runs: (name: string) => boolean = () => true,
  ) {
    this.timer = setInterval(() => this.schedule(), 100);
  }

  private schedule(): void {
    for (const request of this.api.requestsTo("POST", `/apis/batch/v1/namespaces/${this.namespace}/jobs`)) {
      const manifest = request.body as JobManifest;
      const name = manifest.metadata.name;
      if (this.seen.has(name) || !this.api.job(this.namespace, name)) continue;
      this.seen.add(name);
      if (this.runs(name)) void this.run(name, manifest);
    }
  }

  private async run(name: string, manifest: JobManifest): Promise<void> {
    const container = manifest.spec.template.spec.containers[0]!;
    const evict = this.preempt?.job(name) ?? false;
    for (let podNumber = 1; ; podNumber++) {
      const pod = this.api.addPod(this.namespace, name, { name: `${name}-pod${podNumber}`, phase: "Running", containerStatuses: runningStatus });
      this.api.setJobStatus(this.namespace, name, { active: 1, startTime });
      const child = spawn(container.command[0]!, container.command.slice(1), {
        cwd: container.workingDir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value])) },
        stdio: "ignore",
        // A pod of its own: stop() ends the trainer with its wrapper, as deleting a pod does.
        detached: true,
      });
      this.children.add(child);
      const exited = new Promise<number>((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 + 15 : 1))));
      if (evict && podNumber === 1) void this.evictWhenReady(child);
      const code = await exited;
      this.children.delete(child);
      if (!this.api.job(this.namespace, name)) return;
      if (evict && podNumber === 1) {
        this.api.setPodStatus(this.namespace, pod, {
          phase: "Failed",
          conditions: [{ type: "DisruptionTarget", status: "True", reason: "PreemptionByScheduler", message: "Preempted in order to admit critical pod" }],
          containerStatuses: endedStatus(code, "Error"),
        });
        this.api.setJobStatus(this.namespace, name, { active: 0, failed: 1, startTime });
        this.preempted.push(name);
        continue;
      }
      if (code === 0) {
        this.api.setPodStatus(this.namespace, pod, { phase: "Succeeded", containerStatuses: endedStatus(0, "Completed") });
        this.api.setJobStatus(this.namespace, name, { conditions: [{ type: "Complete", status: "True" }], succeeded: 1, active: 0, startTime });
      } else {
        const message = "Job has reached the specified backoff limit";
        this.api.setPodStatus(this.namespace, pod, { phase: "Failed", containerStatuses: endedStatus(code, "Error") });
        this.api.setJobStatus(this.namespace, name, {
          conditions: [{ type: "FailureTarget", status: "True", reason: "BackoffLimitExceeded", message }, { type: "Failed", status: "True", reason: "BackoffLimitExceeded", message }],
          failed: 1,
          active: 0,
        });
      }
      return;
    }
  }

  private async evictWhenReady(child: ChildProcess): Promise<void> {
    while (child.exitCode === null && !(await this.preempt!.when())) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill("SIGTERM");
  }

  stop(): void {
    clearInterval(this.timer);
    for (const child of this.children) {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}
