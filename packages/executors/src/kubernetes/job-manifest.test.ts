import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { afterAll, describe, expect, it } from "vitest";
import type { LaunchSpec } from "../executor.ts";
import { jobManifest, jobNameFor, nonRetriableExitCodes, wrapperScript } from "./job-manifest.ts";
import { kubernetesPoolSchema } from "./kubernetes-pool.ts";

interface Attribute {
  name: string;
  type: string;
}
interface Model {
  getAttributeTypeMap(): Attribute[];
}

/** The client's model class for an OpenAPI type name (V1Job, V1PodSpec, …). */
function modelNamed(type: string): Model | undefined {
  const exported = (k8s as unknown as Record<string, unknown>)[type];
  return typeof exported === "function" && "getAttributeTypeMap" in exported ? (exported as unknown as Model) : undefined;
}

/**
 * Every field of `value` that the client's model for `type` does not have, or holds with the wrong
 * primitive type. The client's serializer silently drops unknown fields, so a misspelled one would
 * never reach the API server, let alone fail there.
 */
function problems(value: unknown, type: string, path: string): string[] {
  if (value === undefined) return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return [`${path}: expected an array (${type})`];
    return value.flatMap((item, index) => problems(item, array[1]!, `${path}[${index}]`));
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${path}: expected a map (${type})`];
    return Object.entries(value).flatMap(([key, item]) => problems(item, map[1]!, `${path}[${JSON.stringify(key)}]`));
  }
  if (type === "string" || type === "number" || type === "boolean") {
    return typeof value === type ? [] : [`${path}: expected a ${type}, got ${JSON.stringify(value)}`];
  }
  const model = modelNamed(type);
  if (!model) return [`${path}: the client has no model ${type}`];
  if (typeof value !== "object" || value === null) return [`${path}: expected an object (${type})`];
  const attributes = new Map(model.getAttributeTypeMap().map((attribute) => [attribute.name, attribute.type]));
  return Object.entries(value).flatMap(([key, item]) => {
    const attributeType = attributes.get(key);
    return attributeType === undefined ? [`${path}.${key}: not a field of ${type}`] : problems(item, attributeType, `${path}.${key}`);
  });
}

const pool = kubernetesPoolSchema.parse({
  name: "h100",
  namespace: "training",
  image: "ghcr.io/example/trainer:1.0",
  nodeSelector: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" },
  tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
  serviceAccountName: "trainer",
  imagePullSecrets: ["registry"],
  backoffLimit: 4,
  artifacts: { claimName: "evo-artifacts", mountPath: "/evo/jobs", localPath: "/srv/evo/jobs" },
});

const spec: LaunchSpec = {
  jobId: "cm1abc",
  attempt: 2,
  command: ["python", "-m", "trainer"],
  env: { EVO_SEED: "7" },
  files: {},
  gpus: 8,
  deadlineSeconds: 7_200,
};

describe("the Job manifest", () => {
  const manifest = jobManifest(pool, spec, "/evo/jobs/cm1abc");

  it("uses only fields of the client's own batch/v1 and core/v1 models, with their types", () => {
    expect(problems(manifest, "V1Job", "job")).toEqual([]);
  });

  it("would catch a misspelled field or a wrongly typed one", () => {
    const misspelled = structuredClone(manifest);
    Object.assign(misspelled.spec!.template.spec!, { restartpolicy: "Never" });
    Object.assign(misspelled.spec!.template.spec!.containers[0]!.resources!.limits!, { "nvidia.com/gpu": 8 });
    expect(problems(misspelled, "V1Job", "job")).toEqual([
      'job.spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"]: expected a string, got 8',
      "job.spec.template.spec.restartpolicy: not a field of V1PodSpec",
    ]);
  });

  it("fails config and data errors at once and lets disruptions not count against backoffLimit", () => {
    // 2 and 3: configuration and data errors; 126 and 127: the interpreter cannot run (a configuration error).
    expect(nonRetriableExitCodes).toEqual([2, 3, 126, 127]);
    expect(manifest.spec).toMatchObject({ backoffLimit: 4, activeDeadlineSeconds: 7_200, podReplacementPolicy: "Failed" });
    expect(manifest.spec!.podFailurePolicy).toEqual({
      rules: [
        { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
        { action: "FailJob", onExitCodes: { containerName: "trainer", operator: "In", values: [2, 3, 126, 127] } },
      ],
    });
  });

  it("places the pod on the pool's GPU nodes with the job's directory on the artifacts volume", () => {
    const labels = { "app.kubernetes.io/managed-by": "evotrainer", "evotrainer.io/job-id": "cm1abc", "evotrainer.io/attempt": "2" };
    expect(manifest.metadata).toEqual({ name: "evo-cm1abc-a2", namespace: "training", labels });
    const podSpec = manifest.spec!.template.spec!;
    expect(manifest.spec!.template.metadata).toEqual({ labels });
    expect(podSpec).toMatchObject({
      restartPolicy: "Never",
      nodeSelector: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" },
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
      serviceAccountName: "trainer",
      imagePullSecrets: [{ name: "registry" }],
      volumes: [{ name: "artifacts", persistentVolumeClaim: { claimName: "evo-artifacts" } }],
    });
    const container = podSpec.containers[0]!;
    expect(container).toMatchObject({
      name: "trainer",
      image: "ghcr.io/example/trainer:1.0",
      workingDir: "/evo/jobs/cm1abc",
      resources: { limits: { "nvidia.com/gpu": "8" }, requests: { "nvidia.com/gpu": "8" } },
      volumeMounts: [{ name: "artifacts", mountPath: "/evo/jobs" }],
      env: [
        { name: "EVO_SEED", value: "7" },
        { name: "EVO_JOB_DIR", value: "/evo/jobs/cm1abc" },
      ],
    });
    expect(container.command).toEqual(["sh", "-c", wrapperScript, "/evo/jobs/cm1abc", "python", "-m", "trainer"]);
  });

  it("asks for no GPU when the job needs none, and refuses a job without time left", () => {
    expect(jobManifest(pool, { ...spec, gpus: 0 }, "/evo/jobs/cm1abc").spec!.template.spec!.containers[0]!.resources).toBeUndefined();
    expect(() => jobManifest(pool, { ...spec, deadlineSeconds: 0 }, "/evo/jobs/cm1abc")).toThrow(/no time left/);
  });
});

describe("Job names", () => {
  it("are DNS-1123 labels of at most 63 characters, distinct per id and attempt", () => {
    const names = [
      jobNameFor("cm1abc", 1),
      jobNameFor("cm1abc", 12),
      jobNameFor("Run_A", 1),
      jobNameFor("run-a", 1),
      jobNameFor("x".repeat(63), 3),
      jobNameFor("x".repeat(62), 3),
    ];
    expect(names[0]).toBe("evo-cm1abc-a1");
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
  });
});

describe("the wrapper, run by a real shell", () => {
  const dir = mkdtempSync(join(tmpdir(), "evo-k8s-wrapper-"));
  const groups: number[] = [];
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    // What a container's end would take with it: whatever the commands left running.
    for (const group of groups) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // the group is gone already
      }
    }
  });

  // Detached: in its own process group, as PID 1 of a container is.
  function run(script: string, terminateOn?: string): Promise<{ code: number | null; stdout: string }> {
    const child = spawn("sh", ["-c", wrapperScript, dir, "sh", "-c", script], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    groups.push(child.pid!);
    let stdout = "";
    let terminated = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      // One preemption, one SIGTERM: a second one sent on a later chunk would run the command's trap again.
      if (terminateOn !== undefined && !terminated && stdout.includes(terminateOn)) {
        terminated = true;
        child.kill("SIGTERM");
      }
    });
    return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout })));
  }

  it("exits with the command's code, logging to the container and to job.log", async () => {
    const { code, stdout } = await run("echo out; echo err >&2; exit 3");
    expect(code).toBe(3);
    expect(stdout).toBe("out\nerr\n");
    expect(readFileSync(join(dir, "job.log"), "utf8")).toBe("out\nerr\n");
    expect(readFileSync(join(dir, "exit_code"), "utf8").trim()).toBe("3");
  });

  it("passes the SIGTERM of a preemption on to the command, which can checkpoint and exit 75", async () => {
    const { code, stdout } = await run("trap 'echo checkpointed; exit 75' TERM; echo started; while :; do sleep 0.05; done", "started");
    expect(code).toBe(75);
    expect(stdout).toBe("started\ncheckpointed\n");
    expect(readFileSync(join(dir, "exit_code"), "utf8").trim()).toBe("75");
  });

  it("does not wait long for processes the command left behind holding its output", async () => {
    const started = Date.now();
    const { code, stdout } = await run("sleep 30 & echo done");
    expect(code).toBe(0);
    expect(stdout).toBe("done\n");
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
