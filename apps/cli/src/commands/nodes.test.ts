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
  });
});

describe("a bad compute config", () => {
  it("names the node's field: a key's text inline, a relative work root", () => {
    const file = join(mkdtempSync(join(tmpdir(), "evo-compute-")), "compute.yaml");
    writeFileSync(file, "nodes:\n  - { name: a, host: h, user: u, gpus: 1, workRoot: jobs, key: '-----BEGIN OPENSSH PRIVATE KEY-----' }\n");
    expect(() => readComputeConfig(file)).toThrow(/invalid compute config:\n {2}- nodes\.0\.key: [^\n]*\n {2}- nodes\.0\.workRoot: an absolute path on the node/);
  });
});
