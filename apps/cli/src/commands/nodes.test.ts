import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readComputeConfig } from "../config-files.ts";

describe("the compute config", () => {
  it("reads the example: three nodes, keys by path, env and store", () => {
    const config = readComputeConfig("examples/compute.yaml");
    expect(config.nodes.map((n) => [n.name, Object.keys(n.key)[0], n.port])).toEqual([
      ["gpu-a100-1", "path", 22],
      ["gpu-h100-1", "env", 22],
      ["gpu-l4-spare", "store", 22],
    ]);
    expect(config.clusters).toEqual([
      {
        name: "hpc",
        login: { host: "login.hpc.example.org", port: 22, user: "evo", key: { path: "~/.ssh/evotrainer_ed25519" } },
        jobRoot: "/shared/evotrainer/jobs",
        partition: "gpu",
        account: "rl-team",
        qos: "normal",
        timeLimit: "1-00:00:00",
        gpuType: "a100",
        extraSbatch: ["--mem=128G", "--cpus-per-task=16"],
        enabled: true,
      },
    ]);
  });
});

describe("a bad compute config", () => {
  it("names the node's field: a key's text inline, a relative work root", () => {
    const file = join(mkdtempSync(join(tmpdir(), "evo-compute-")), "compute.yaml");
    writeFileSync(file, "nodes:\n  - { name: a, host: h, user: u, gpus: 1, workRoot: jobs, key: '-----BEGIN OPENSSH PRIVATE KEY-----' }\n");
    expect(() => readComputeConfig(file)).toThrow(/invalid compute config:\n {2}- nodes\.0\.key: [^\n]*\n {2}- nodes\.0\.workRoot: an absolute path on the node/);
  });

  it("names the cluster's field: a time limit Slurm cannot read, a job root on no shared filesystem", () => {
    const file = join(mkdtempSync(join(tmpdir(), "evo-compute-")), "compute.yaml");
    writeFileSync(file, "clusters:\n  - { name: c, login: local, jobRoot: jobs, timeLimit: an hour }\n");
    expect(() => readComputeConfig(file)).toThrow(/- clusters\.0\.jobRoot: an absolute path on the cluster's shared filesystem[\s\S]*- clusters\.0\.timeLimit: /);
  });
});
