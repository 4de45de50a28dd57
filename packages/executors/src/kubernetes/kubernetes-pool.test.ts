import { describe, expect, it } from "vitest";
import { kubernetesPoolSchema } from "./kubernetes-pool.ts";

const minimal = {
  name: "h100",
  namespace: "training",
  image: "ghcr.io/example/trainer:1.0",
  artifacts: { claimName: "evo-artifacts", mountPath: "/evo/jobs", localPath: "/srv/evo/jobs" },
};

describe("kubernetesPoolSchema", () => {
  it("fills in the defaults", () => {
    expect(kubernetesPoolSchema.parse(minimal)).toEqual({ ...minimal, nodeSelector: {}, tolerations: [], backoffLimit: 3 });
  });

  it("rejects unknown keys, relative paths and namespaces that are not DNS labels", () => {
    expect(kubernetesPoolSchema.safeParse({ ...minimal, nodeselector: {} }).success).toBe(false);
    expect(kubernetesPoolSchema.safeParse({ ...minimal, artifacts: { ...minimal.artifacts, mountPath: "jobs" } }).success).toBe(false);
    expect(kubernetesPoolSchema.safeParse({ ...minimal, namespace: "Training" }).success).toBe(false);
    expect(kubernetesPoolSchema.safeParse({ ...minimal, tolerations: [{ key: "gpu", operatr: "Exists" }] }).success).toBe(false);
  });
});
