import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, posix, resolve } from "node:path";
import { readStatus } from "@evotrainer/contract";
import { ApiException, BatchV1Api, CoreV1Api, makeInformer, type Informer, type KubeConfig, type ObjectCache, type V1Job, type V1Pod } from "@kubernetes/client-node";
import type { Executor, JobHandle, JobObservation, JobTimes, LaunchSpec, ProbeResult, ProbeSpec, RemoteFile } from "../executor.ts";
import { listFiles, readRange, readTail } from "../local/read-range.ts";
import { checkProbe, probeFiles, probeTimedOut } from "../probe-dir.ts";
import { jobFiles } from "./job-files.ts";
import { jobManifest, jobNameFor, jobNameLabel, managedBySelector, trainerContainer } from "./job-manifest.ts";
import { classifyFailedJob, jobOutcome, newestFirst, trainerTimes } from "./job-observation.ts";
import { probeJobName, probeManifest } from "./probe-manifest.ts";
import { kubernetesPoolSchema, type KubernetesPool, type KubernetesPoolInput } from "./kubernetes-pool.ts";

// A job id becomes a label value and part of a Job name: letters, digits, `_` and `-`, at most 63.
const safeJobId = /^[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/;

const isApiError = (error: unknown, code: number) => error instanceof ApiException && error.code === code;

/** The last `maxBytes` bytes of `text`. */
function lastBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  return bytes.length <= maxBytes ? text : bytes.subarray(bytes.length - maxBytes).toString("utf8");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// How often a probe's Job is read while it runs: it is a person's wait, not a GPU job's.
const PROBE_POLL_MS = 500;

/**
 * Runs each attempt of a job as a batch/v1 Job on a Kubernetes pool. A job's directory lives on a
 * volume (a PVC) that the pods mount at `artifacts.mountPath` and the control plane at
 * `artifacts.localPath`, so the control plane places files, lists and reads outputs as plain files
 * while the job runs. (An object store instead of a shared volume is not supported.)
 */
export class KubernetesExecutor implements Executor {
  private readonly pool: KubernetesPool;
  private readonly batch: BatchV1Api;
  private readonly core: CoreV1Api;
  private readonly jobs: Informer<V1Job> & ObjectCache<V1Job>;
  // The cache is trusted only while its watch is healthy; otherwise observe reads the Job itself.
  private cacheLive = false;
  private informerErrors = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    kubeConfig: KubeConfig,
    pool: KubernetesPoolInput,
    private readonly options: { log?: (line: string) => void } = {},
  ) {
    this.pool = kubernetesPoolSchema.parse(pool);
    this.batch = kubeConfig.makeApiClient(BatchV1Api);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    const { namespace } = this.pool;
    this.jobs = makeInformer<V1Job>(
      kubeConfig,
      `/apis/batch/v1/namespaces/${namespace}/jobs`,
      () => this.batch.listNamespacedJob({ namespace, labelSelector: managedBySelector }),
      managedBySelector,
    );
    // The informer stops on an error (a dropped watch, a failed list): start it again, with backoff.
    this.jobs.on("error", (error: unknown) => this.informerFailed(error));
    void this.startInformer();
  }

  private async startInformer(): Promise<void> {
    const errorsBefore = this.informerErrors;
    try {
      await this.jobs.start();
    } catch (error) {
      this.informerFailed(error);
    }
    if (!this.closed && this.informerErrors === errorsBefore) {
      this.cacheLive = true;
      this.informerErrors = 0;
    }
  }

  private informerFailed(error: unknown): void {
    this.cacheLive = false;
    if (this.closed) return;
    this.informerErrors++;
    const delay = Math.min(30_000, 500 * 2 ** Math.min(this.informerErrors, 6));
    const why = error instanceof Error ? error.message : String(error);
    this.log(`kubernetes: watch of Jobs in ${this.pool.namespace} failed (${why}); restarting in ${delay} ms`);
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.startInformer(), delay);
    this.restartTimer.unref();
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  /** Stops the informer's watch. */
  async close(): Promise<void> {
    this.closed = true;
    this.cacheLive = false;
    clearTimeout(this.restartTimer);
    await this.jobs.stop();
  }

  /** The job's directory as its pods see it; the control plane has it at `localPath` instead. */
  workDirFor(jobId: string): string {
    if (!safeJobId.test(jobId)) throw new Error(`job id "${jobId}" cannot name a Kubernetes Job (letters, digits, _ and -, at most 63)`);
    return posix.join(this.pool.artifacts.mountPath, jobId);
  }

  /** Where the control plane finds the directory of a job launched here. */
  private localDirOf(handle: JobHandle): string {
    const jobId = posix.basename(handle.workDir);
    if (handle.executor !== "kubernetes" || this.workDirFor(jobId) !== handle.workDir) {
      throw new Error(`${handle.executor} job at ${handle.workDir} is not on pool ${this.pool.name} (${this.pool.artifacts.mountPath})`);
    }
    return join(this.pool.artifacts.localPath, jobId);
  }

  /** `relative` under `dir`, refusing paths that climb out of it. */
  private inside(dir: string, relative: string): string {
    const path = resolve(dir, relative);
    if (path !== dir && !path.startsWith(`${dir}/`)) throw new Error(`"${relative}" would land outside the job directory`);
    return path;
  }

  async launch(spec: LaunchSpec): Promise<JobHandle> {
    const workDir = this.workDirFor(spec.jobId);
    const localDir = join(this.pool.artifacts.localPath, spec.jobId);
    const manifest = jobManifest(this.pool, spec, workDir);
    const name = jobNameFor(spec.jobId, spec.attempt);
    const handle: JobHandle = { executor: "kubernetes", externalId: name, workDir };
    // A new attempt starts without the last one's exit code; its output dir stays, for resuming.
    await rm(join(localDir, jobFiles.exitCode), { force: true });
    await mkdir(join(localDir, "output"), { recursive: true });
    for (const [relative, content] of Object.entries(spec.files)) {
      const path = this.inside(localDir, relative);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
    }
    try {
      await this.batch.createNamespacedJob({ namespace: this.pool.namespace, body: manifest });
    } catch (error) {
      // The Job of this attempt exists: the control plane launched it before it crashed. Adopt it.
      if (!isApiError(error, 409)) throw error;
      this.log(`kubernetes: Job ${name} already exists; adopting it`);
    }
    return handle;
  }

  /** The Job from the informer's cache, or read from the API server; null when it does not exist. */
  private async readJob(name: string): Promise<V1Job | null> {
    const cached = this.cacheLive ? this.jobs.get(name, this.pool.namespace) : undefined;
    if (cached) return cached;
    try {
      return await this.batch.readNamespacedJob({ name, namespace: this.pool.namespace });
    } catch (error) {
      if (isApiError(error, 404)) return null;
      throw error;
    }
  }

  private async podsOf(jobName: string): Promise<V1Pod[]> {
    const list = await this.core.listNamespacedPod({ namespace: this.pool.namespace, labelSelector: `${jobNameLabel}=${jobName}` });
    return list.items;
  }

  async observe(handle: JobHandle): Promise<JobObservation> {
    const localDir = this.localDirOf(handle);
    const name = handle.externalId;
    const job = await this.readJob(name);
    const outcome = job ? jobOutcome(job) : null;
    if (outcome === "succeeded") return { state: "succeeded" };
    const cancelledJob = await readFile(join(localDir, jobFiles.cancelled), "utf8").then((text) => text.trim(), () => null);
    if (cancelledJob === name) return { state: "cancelled" };
    if (!job) return this.vanished(name, localDir);
    if (outcome === null) return { state: "running" };
    const [pods, status] = await Promise.all([this.podsOf(name), readStatus(join(localDir, "output")).catch(() => null)]);
    return classifyFailedJob(job, pods, status);
  }

  /**
   * A Job we did not cancel is gone: someone deleted it (or a TTL did) before we saw it end. Its
   * exit code on the volume tells whether the command finished; otherwise the place it ran vanished
   * under it, as with a lost node: nothing says a rerun would fail again, so it is retriable.
   */
  private async vanished(name: string, localDir: string): Promise<JobObservation> {
    const text = await readFile(join(localDir, jobFiles.exitCode), "utf8").catch(() => null);
    const exitCode = text === null ? null : Number(text.trim());
    if (exitCode === 0) return { state: "succeeded" };
    const last = exitCode === null ? "left no exit code" : `last exited with code ${exitCode}`;
    return {
      state: "failed",
      exitCode,
      failureClass: "node_lost",
      retriable: true,
      message: `Kubernetes Job ${name} no longer exists (deleted outside EvoTrainer before it finished) and ${last}`,
    };
  }

  async list(handle: JobHandle, relativeDir: string): Promise<RemoteFile[]> {
    const localDir = this.localDirOf(handle);
    this.inside(localDir, relativeDir);
    return listFiles(localDir, relativeDir);
  }

  async readFrom(handle: JobHandle, relativePath: string, byteOffset: number, maxBytes: number): Promise<Buffer> {
    return readRange(this.inside(this.localDirOf(handle), relativePath), byteOffset, maxBytes);
  }

  /**
   * The tail of the newest pod's log, and of its container's previous run when it restarted, each
   * under a header; job.log on the volume when the API has no log (pod gone, not started yet).
   */
  async logTail(handle: JobHandle, maxBytes: number): Promise<string> {
    const localDir = this.localDirOf(handle);
    const fromVolume = () => readTail(join(localDir, jobFiles.log), maxBytes);
    const pod = newestFirst(await this.podsOf(handle.externalId).catch(() => []))[0];
    const podName = pod?.metadata?.name;
    if (!podName) return fromVolume();
    // The API cannot return the last N bytes: ask for enough lines and cap the transfer.
    const read = (previous: boolean) =>
      this.core.readNamespacedPodLog({
        name: podName,
        namespace: this.pool.namespace,
        container: trainerContainer,
        previous,
        tailLines: Math.ceil(maxBytes / 64) + 1,
        limitBytes: maxBytes * 4,
      });
    let current: string;
    try {
      current = await read(false);
    } catch {
      return fromVolume();
    }
    const restarts = pod.status?.containerStatuses?.find((status) => status.name === trainerContainer)?.restartCount ?? 0;
    if (restarts === 0) return lastBytes(current, maxBytes);
    const previous = await read(true).catch(() => "");
    const currentHeader = `--- pod ${podName}, current run (after ${restarts} restart${restarts === 1 ? "" : "s"}) ---\n`;
    const previousHeader = `--- pod ${podName}, previous run ---\n`;
    const currentPart = currentHeader + lastBytes(current, Math.max(0, maxBytes - Buffer.byteLength(currentHeader)));
    const room = maxBytes - Buffer.byteLength(currentPart) - Buffer.byteLength(previousHeader);
    if (room <= 0 || previous === "") return lastBytes(currentPart, maxBytes);
    return previousHeader + lastBytes(previous, room) + currentPart;
  }

  /** The trainer container's start and end from its pod's status; `now` is this machine's clock. */
  async times(handle: JobHandle): Promise<JobTimes | null> {
    this.localDirOf(handle);
    return trainerTimes(await this.podsOf(handle.externalId), new Date());
  }

  /**
   * Deletes the Job and, with foreground propagation, its pods before the Job itself goes; the
   * marker on the volume makes observe report the job as cancelled rather than vanished.
   */
  async cancel(handle: JobHandle): Promise<void> {
    const localDir = this.localDirOf(handle);
    await mkdir(localDir, { recursive: true });
    await writeFile(join(localDir, jobFiles.cancelled), handle.externalId);
    try {
      await this.batch.deleteNamespacedJob({ name: handle.externalId, namespace: this.pool.namespace, propagationPolicy: "Foreground" });
    } catch (error) {
      if (!isApiError(error, 404)) throw error;
    }
  }

  /**
   * Runs a probe as a one-pod Job on the pool, with the pool's image: its files and its answer live
   * in `.probes/<id>` on the artifacts volume. The Job is read until it ends or the probe's time is
   * up, then deleted with its pod, and the directory removed.
   */
  async probe(spec: ProbeSpec): Promise<ProbeResult> {
    checkProbe(spec);
    const where = `Kubernetes pool "${this.pool.name}" (image ${this.pool.image})`;
    const localDir = join(this.pool.artifacts.localPath, ".probes", spec.id);
    const name = probeJobName(spec);
    const { namespace } = this.pool;
    await mkdir(localDir, { recursive: true });
    try {
      for (const [file, content] of Object.entries({ ...spec.files, [probeFiles.stdin]: spec.stdin })) await writeFile(join(localDir, file), content);
      await this.batch.createNamespacedJob({ namespace, body: probeManifest(this.pool, spec, posix.join(this.pool.artifacts.mountPath, ".probes", spec.id)) });
      try {
        const deadline = Date.now() + spec.timeoutSeconds * 1_000;
        let outcome: "succeeded" | "failed" | null = null;
        while (outcome === null && Date.now() < deadline) {
          await sleep(PROBE_POLL_MS);
          outcome = jobOutcome(await this.batch.readNamespacedJob({ name, namespace }));
        }
        const read = (file: string) => readFile(join(localDir, file), "utf8").catch(() => null);
        const code = await read(probeFiles.exitCode);
        if (code === null) {
          const detail = await this.probeWaitReason(name);
          if (outcome === null) throw probeTimedOut(where, spec, detail);
          throw new Error(`${where}: the check's Job ${name} failed before its command answered${detail ? ` (${detail})` : ""}`);
        }
        return { exitCode: Number(code.trim()), stdout: (await read(probeFiles.stdout)) ?? "", stderr: (await read(probeFiles.stderr)) ?? "", where };
      } finally {
        await this.batch.deleteNamespacedJob({ name, namespace, propagationPolicy: "Background" }).catch((error: unknown) => {
          if (!isApiError(error, 404)) this.log(`kubernetes: could not delete the check's Job ${name}: ${error instanceof Error ? error.message : String(error)}`);
        });
      }
    } finally {
      await rm(localDir, { recursive: true, force: true });
    }
  }

  /** Why a probe's pod has not answered, as its status says (ErrImagePull, Unschedulable…); "" when it says nothing. */
  private async probeWaitReason(jobName: string): Promise<string> {
    const pod = newestFirst(await this.podsOf(jobName).catch(() => []))[0];
    if (!pod) return "no pod was created";
    const waiting = pod.status?.containerStatuses?.find((status) => status.name === trainerContainer)?.state?.waiting;
    if (waiting?.reason) return `pod ${pod.metadata?.name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""}`;
    const unscheduled = pod.status?.conditions?.find((condition) => condition.type === "PodScheduled" && condition.status === "False");
    if (unscheduled) return `pod ${pod.metadata?.name} not scheduled: ${unscheduled.message ?? unscheduled.reason ?? ""}`;
    return `pod ${pod.metadata?.name} is ${pod.status?.phase ?? "pending"}`;
  }
}
