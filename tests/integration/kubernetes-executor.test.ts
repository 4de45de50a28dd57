import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubernetesPoolSchema, volumeWeightsPlace, weightsIn, type JobHandle, type JobObservation, type KubernetesPoolInput, type LaunchSpec } from "@evotrainer/executors";
import { KubernetesExecutor } from "@evotrainer/executors/kubernetes-executor";
import { FakeKubeApi } from "../support/fake-kube-api.ts";

const namespace = "training";
const localPath = mkdtempSync(join(tmpdir(), "evo-k8s-"));
const pool: KubernetesPoolInput = {
  name: "h100",
  namespace,
  image: "ghcr.io/example/trainer:1.0",
  nodeSelector: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" },
  backoffLimit: 2,
  artifacts: { claimName: "evo-artifacts", mountPath: "/evo/jobs", localPath },
};

let api: FakeKubeApi;
let executor: KubernetesExecutor;
const logLines: string[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  api = await FakeKubeApi.start();
  executor = new KubernetesExecutor(api.kubeConfig(), pool, { log: (line) => logLines.push(line) });
  for (let i = 0; api.watchCount === 0; i++) {
    if (i > 200) throw new Error("the informer never opened its watch");
    await sleep(10);
  }
});

afterAll(async () => {
  await executor?.close();
  await api?.close();
  rmSync(localPath, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

function spec(jobId: string, overrides: Partial<LaunchSpec> = {}): LaunchSpec {
  return { jobId, attempt: 1, command: ["python", "-m", "trainer", "job.json"], env: { EVO_SEED: "7" }, files: {}, gpus: 1, deadlineSeconds: 3_600, ...overrides };
}

/** Observes until `done` holds (the informer's watch may deliver a change a moment later). */
async function observeUntil(handle: JobHandle, done: (observation: JobObservation) => boolean): Promise<JobObservation> {
  let observation = await executor.observe(handle);
  for (let i = 0; !done(observation); i++) {
    if (i > 250) throw new Error(`still ${JSON.stringify(observation)}`);
    await sleep(20);
    observation = await executor.observe(handle);
  }
  return observation;
}

const settled = (observation: JobObservation) => observation.state !== "running";

/** The trainer container's status as the kubelet reports it once the container ended. */
function ended(exitCode: number, reason: string, extra: Record<string, unknown> = {}) {
  return [
    {
      name: "trainer",
      image: pool.image,
      imageID: "",
      ready: false,
      started: false,
      restartCount: 0,
      state: { terminated: { exitCode, reason, startedAt: "2030-01-01T00:00:05Z", finishedAt: "2030-01-01T00:10:00Z" } },
      ...extra,
    },
  ];
}

const running = [{ name: "trainer", image: pool.image, imageID: "", ready: true, started: true, restartCount: 0, state: { running: { startedAt: "2030-01-01T00:00:05Z" } } }];

function failedCondition(reason: string, message: string) {
  return { conditions: [{ type: "FailureTarget", status: "True", reason, message }, { type: "Failed", status: "True", reason, message }], failed: 1, active: 0 };
}

describe("Kubernetes executor against a local HTTP server speaking the real batch/v1 and core/v1 API", () => {
  it("creates a Job, reports it running, then succeeded on Complete; list/readFrom see the volume's files", async () => {
    const handle = await executor.launch(spec("okjob1", { files: { "job.json": '{"contract":"evo.job/v1"}', "configs/reward.yaml": "scale: 1\n" } }));
    expect(handle).toEqual({ executor: "kubernetes", externalId: "evo-okjob1-a1", workDir: "/evo/jobs/okjob1" });
    expect(executor.workDirFor("okjob1")).toBe("/evo/jobs/okjob1");
    expect(readFileSync(join(localPath, "okjob1", "configs/reward.yaml"), "utf8")).toBe("scale: 1\n");

    // What went over the wire after the client's serializer: nothing of the manifest was dropped.
    const [create] = api.requestsTo("POST", `/apis/batch/v1/namespaces/${namespace}/jobs`);
    const sent = create!.body as { metadata: { name: string; labels: Record<string, string> }; spec: Record<string, unknown> & { template: { spec: { containers: Array<Record<string, unknown>> } } } };
    expect(sent.metadata.name).toBe("evo-okjob1-a1");
    expect(sent.metadata.labels).toMatchObject({ "app.kubernetes.io/managed-by": "evotrainer", "evotrainer.io/job-id": "okjob1" });
    expect(sent.spec).toMatchObject({ backoffLimit: 2, activeDeadlineSeconds: 3_600, podFailurePolicy: { rules: expect.any(Array) } });
    const container = sent.spec.template.spec.containers[0]!;
    expect(container).toMatchObject({ workingDir: "/evo/jobs/okjob1", resources: { limits: { "nvidia.com/gpu": "1" } } });
    expect((container.command as string[]).slice(3)).toEqual(["/evo/jobs/okjob1", "python", "-m", "trainer", "job.json"]);

    expect(await executor.observe(handle)).toEqual({ state: "running" });

    // The pod writes into the shared volume; the control plane reads it through localPath.
    mkdirSync(join(localPath, "okjob1", "output"), { recursive: true });
    writeFileSync(join(localPath, "okjob1", "output", "metrics.jsonl"), '{"step":1,"data":{"loss":0.5}}\n');
    api.addPod(namespace, "evo-okjob1-a1", { phase: "Succeeded", containerStatuses: ended(0, "Completed") });
    api.setJobStatus(namespace, "evo-okjob1-a1", {
      conditions: [{ type: "SuccessCriteriaMet", status: "True" }, { type: "Complete", status: "True" }],
      succeeded: 1,
      active: 0,
      startTime: "2030-01-01T00:00:01Z",
      completionTime: "2030-01-01T00:10:01Z",
    });
    expect(await observeUntil(handle, settled)).toEqual({ state: "succeeded" });

    // Served from the informer's cache: observing again reads no Job from the API server.
    const reads = () => api.requestsTo("GET", `/apis/batch/v1/namespaces/${namespace}/jobs/evo-okjob1-a1`).length;
    const before = reads();
    await executor.observe(handle);
    await executor.observe(handle);
    expect(reads()).toBe(before);

    const files = await executor.list(handle, "output");
    expect(files).toEqual([{ path: "output/metrics.jsonl", size: 31 }]);
    expect((await executor.readFrom(handle, "output/metrics.jsonl", 10, 4)).toString()).toBe('"dat');
    await expect(executor.readFrom(handle, "../okjob2/secret", 0, 10)).rejects.toThrow(/outside the job directory/);
  });

  it("reports the trainer container's own start and end from the newest pod's status", async () => {
    const handle = await executor.launch(spec("timesjob1"));
    expect(await executor.times(handle)).toBeNull();
    const first = api.addPod(namespace, "evo-timesjob1-a1", { phase: "Running", containerStatuses: running });
    expect(await executor.times(handle)).toMatchObject({ startedAt: "2030-01-01T00:00:05.000Z", endedAt: null });
    api.setPodStatus(namespace, first, { phase: "Succeeded", containerStatuses: ended(0, "Completed") });
    expect(await executor.times(handle)).toMatchObject({ startedAt: "2030-01-01T00:00:05.000Z", endedAt: "2030-01-01T00:10:00.000Z" });
  });

  it("reaches a job's weights on the artifacts volume where the control plane mounts it, with no pod", async () => {
    const handle = await executor.launch(spec("weightsjob1"));
    const output = join(localPath, "weightsjob1", "output");
    mkdirSync(join(output, "verl", "checkpoints", "global_step_3"), { recursive: true });
    writeFileSync(join(output, "verl", "checkpoints", "global_step_3", "model.pt"), Buffer.alloc(300));
    writeFileSync(join(output, "metrics.jsonl"), "{}\n");
    const parsed = kubernetesPoolSchema.parse(pool);
    const place = await volumeWeightsPlace(parsed, handle.workDir);
    const found = await weightsIn(place.files, place.outputDir);
    expect(found).toEqual([{ path: join(output, "verl", "checkpoints"), bytes: 300 }]);
    await place.files.remove(found[0]!.path);
    expect(existsSync(join(output, "verl", "checkpoints"))).toBe(false);
    expect(existsSync(join(output, "metrics.jsonl"))).toBe(true);
    await expect(volumeWeightsPlace(parsed, "/elsewhere/weightsjob1")).rejects.toThrow(/not a job directory of pool h100/);
    await expect(volumeWeightsPlace({ ...parsed, artifacts: { ...parsed.artifacts, localPath: join(localPath, "not-mounted") } }, handle.workDir)).rejects.toThrow(/not mounted on this machine/);
  });

  it("reads an OOMKilled pod of a Job that hit BackoffLimitExceeded as oom, not retriable", async () => {
    const handle = await executor.launch(spec("oomjob1"));
    api.addPod(namespace, handle.externalId, { phase: "Failed", containerStatuses: ended(137, "OOMKilled") });
    api.setJobStatus(namespace, handle.externalId, failedCondition("BackoffLimitExceeded", "Job has reached the specified backoff limit"));
    const observation = await observeUntil(handle, settled);
    expect(observation).toMatchObject({ state: "failed", exitCode: 137, failureClass: "oom", retriable: false });
    expect(observation.state === "failed" && observation.message).toMatch(/BackoffLimitExceeded.*OOMKilled/);
    expect(api.requestsTo("GET", `/api/v1/namespaces/${namespace}/pods`).at(-1)?.query).toMatchObject({ labelSelector: `job-name=${handle.externalId}` });
  });

  it("never reports a preempted pod as a failure while the Job is active, and the Job then succeeds", async () => {
    const handle = await executor.launch(spec("preempt1"));
    const seen: JobObservation[] = [];
    const first = api.addPod(namespace, handle.externalId, { phase: "Running", containerStatuses: running });
    api.setJobStatus(namespace, handle.externalId, { active: 1, startTime: "2030-01-01T00:00:01Z" });
    seen.push(await executor.observe(handle));

    // The scheduler preempts the pod: it gets DisruptionTarget, the trainer checkpoints and exits 75.
    // `failed: 1` is what clusters without the pod failure policy count; the executor ignores it.
    api.setPodStatus(namespace, first, {
      phase: "Failed",
      conditions: [{ type: "DisruptionTarget", status: "True", reason: "PreemptionByScheduler", message: "Preempted in order to admit critical pod" }],
      containerStatuses: ended(75, "Error"),
    });
    api.setJobStatus(namespace, handle.externalId, { active: 0, failed: 1, startTime: "2030-01-01T00:00:01Z" });
    for (let i = 0; i < 5; i++) {
      seen.push(await executor.observe(handle));
      await sleep(10);
    }

    // The Job controller's replacement pod resumes and completes.
    const second = api.addPod(namespace, handle.externalId, { phase: "Running", containerStatuses: running });
    api.setJobStatus(namespace, handle.externalId, { active: 1, failed: 1, startTime: "2030-01-01T00:00:01Z" });
    seen.push(await executor.observe(handle));
    api.setPodStatus(namespace, second, { phase: "Succeeded", containerStatuses: ended(0, "Completed") });
    api.setJobStatus(namespace, handle.externalId, { conditions: [{ type: "Complete", status: "True" }], succeeded: 1, failed: 1, active: 0 });
    seen.push(await observeUntil(handle, settled));

    expect(seen.every((observation) => observation.state === "running" || observation.state === "succeeded")).toBe(true);
    expect(seen.at(-1)).toEqual({ state: "succeeded" });
  });

  it("reads DeadlineExceeded as deadline_exceeded, not retriable", async () => {
    const handle = await executor.launch(spec("deadline1", { deadlineSeconds: 120.5 }));
    expect(api.job(namespace, handle.externalId)?.spec).toMatchObject({ activeDeadlineSeconds: 121 });
    api.addPod(namespace, handle.externalId, { phase: "Failed", containerStatuses: ended(143, "Error") });
    api.setJobStatus(namespace, handle.externalId, failedCondition("DeadlineExceeded", "Job was active longer than specified deadline"));
    const observation = await observeUntil(handle, settled);
    expect(observation).toMatchObject({ state: "failed", failureClass: "deadline_exceeded", retriable: false });
    expect(observation.state === "failed" && observation.message).toContain("Job was active longer than specified deadline");
  });

  it("reads the config_error exit code behind a PodFailurePolicy failure as config_error, not retriable", async () => {
    const handle = await executor.launch(spec("config1"));
    const pod = api.addPod(namespace, handle.externalId, { phase: "Failed", containerStatuses: ended(2, "Error") });
    const message = `Container trainer for pod ${namespace}/${pod} failed with exit code 2 matching FailJob rule at index 1`;
    api.setJobStatus(namespace, handle.externalId, failedCondition("PodFailurePolicy", message));
    const observation = await observeUntil(handle, settled);
    expect(observation).toMatchObject({ state: "failed", exitCode: 2, failureClass: "config_error", retriable: false });
    expect(observation.state === "failed" && observation.message).toContain("matching FailJob rule");
  });

  it("cancels with a DELETE using Foreground propagation; observe then says cancelled", async () => {
    const handle = await executor.launch(spec("cancel1"));
    api.addPod(namespace, handle.externalId, { phase: "Running", containerStatuses: running });
    await executor.cancel(handle);
    const [deletion] = api.requestsTo("DELETE", `/apis/batch/v1/namespaces/${namespace}/jobs/${handle.externalId}`);
    expect(deletion?.query).toMatchObject({ propagationPolicy: "Foreground" });
    expect(await executor.observe(handle)).toEqual({ state: "cancelled" });
    for (let i = 0; api.job(namespace, handle.externalId); i++) {
      if (i > 100) throw new Error("the Job was never deleted");
      await sleep(10);
    }
    expect(await executor.observe(handle)).toEqual({ state: "cancelled" });
    await executor.cancel(handle); // already gone: a 404 is fine
  });

  it("adopts the Job of a repeated launch of the same attempt (409 AlreadyExists) and starts nothing", async () => {
    const first = await executor.launch(spec("adopt1"));
    const again = await executor.launch(spec("adopt1"));
    expect(again).toEqual(first);
    expect(api.requestsTo("POST", `/apis/batch/v1/namespaces/${namespace}/jobs`).filter((request) => (request.body as { metadata: { name: string } }).metadata.name === first.externalId)).toHaveLength(2);
    expect(logLines.some((line) => line.includes(`Job ${first.externalId} already exists`))).toBe(true);
    const retry = await executor.launch(spec("adopt1", { attempt: 2 }));
    expect(retry.externalId).toBe("evo-adopt1-a2");
    expect(api.job(namespace, "evo-adopt1-a2")).toBeDefined();
  });

  it("reports a Job deleted behind its back as node_lost, retriable", async () => {
    const handle = await executor.launch(spec("lost1"));
    api.deleteJob(namespace, handle.externalId);
    expect(await observeUntil(handle, settled)).toMatchObject({ state: "failed", exitCode: null, failureClass: "node_lost", retriable: true });
  });

  it("tails the newest pod's log, its previous run under its own header, and falls back to job.log", async () => {
    const handle = await executor.launch(spec("logs1"));
    expect(await executor.logTail(handle, 1_000)).toBe("");
    writeFileSync(join(localPath, "logs1", "job.log"), "from the volume\n");
    expect(await executor.logTail(handle, 1_000)).toBe("from the volume\n");

    const pod = api.addPod(namespace, handle.externalId, {
      phase: "Running",
      containerStatuses: [{ ...running[0], restartCount: 1 }],
      log: "step 1\nstep 2\n",
      previousLog: "old step 1\nKilled\n",
    });
    const tail = await executor.logTail(handle, 1_000);
    expect(tail).toBe(`--- pod ${pod}, previous run ---\nold step 1\nKilled\n--- pod ${pod}, current run (after 1 restart) ---\nstep 1\nstep 2\n`);
    const logReads = api.requestsTo("GET", `/api/v1/namespaces/${namespace}/pods/${pod}/log`);
    expect(logReads.map((request) => request.query.previous)).toEqual(["false", "true"]);
    expect(logReads[0]!.query).toMatchObject({ container: "trainer", limitBytes: "4000" });
    expect(Number(logReads[0]!.query.tailLines)).toBeGreaterThan(0);
    expect(Buffer.byteLength(await executor.logTail(handle, 60))).toBeLessThanOrEqual(60);
    expect(existsSync(join(localPath, "logs1", "output"))).toBe(true);
  });

  it("keeps its cache current across a dropped watch and a 410 Gone (the informer lists again)", async () => {
    const complete = { conditions: [{ type: "Complete", status: "True" }], succeeded: 1, active: 0 };
    const jobsPath = `/apis/batch/v1/namespaces/${namespace}/jobs`;
    const lists = () => api.requests.filter((request) => request.path === jobsPath && request.method === "GET" && request.query.watch !== "true").length;
    const watchOpen = async () => {
      for (let i = 0; api.watchCount === 0; i++) {
        if (i > 200) throw new Error("the informer did not watch again");
        await sleep(10);
      }
    };

    const first = await executor.launch(spec("rewatch1"));
    api.dropWatches();
    await watchOpen();
    api.setJobStatus(namespace, first.externalId, complete);
    expect(await observeUntil(first, settled)).toEqual({ state: "succeeded" });

    const listsBefore = lists();
    const second = await executor.launch(spec("rewatch2"));
    api.compact();
    api.dropWatches();
    await watchOpen();
    expect(lists()).toBe(listsBefore + 1);
    api.setJobStatus(namespace, second.externalId, complete);
    expect(await observeUntil(second, settled)).toEqual({ state: "succeeded" });
    expect(logLines.filter((line) => line.includes("watch of Jobs"))).toEqual([]);
  });
});
