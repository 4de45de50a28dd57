import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deleteWeights, weightsToDelete } from "./job-weights.ts";

const root = mkdtempSync(join(tmpdir(), "evo-job-weights-"));
const write = (path: string, bytes: number) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, Buffer.alloc(bytes));
};

describe("weightsToDelete: the model weights in the job directories of branches whose weights go", () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds the contract's checkpoints, TRL's and verl's saves with their sizes, and nothing else of the job", async () => {
    const trl = join(root, "trl-job");
    write(join(trl, "output/checkpoints/latest.json"), 10);
    write(join(trl, "output/trl/final/model.safetensors"), 1000);
    write(join(trl, "output/trl/checkpoint-2/model.safetensors"), 500);
    write(join(trl, "output/trl/completions/completions_00001.parquet"), 7);
    write(join(trl, "output/metrics.jsonl"), 3);
    write(join(trl, "output/rollouts/train/step_1.jsonl"), 3);
    // A link to a shared base model counts as the link, not the model, and the model is not followed.
    write(join(root, "base-model/model.safetensors"), 100_000);
    symlinkSync(join(root, "base-model"), join(trl, "output/trl/final/base"));
    const verl = join(root, "verl-job");
    write(join(verl, "output/verl/checkpoints/global_step_2/actor/model.pt"), 2000);
    write(join(verl, "output/verl/rollouts/1.jsonl"), 5);
    const kept = join(root, "kept-job");
    write(join(kept, "output/checkpoints/policy_step_4.json"), 40);

    const jobs = [
      { branchId: "b1", branchVersion: 1, jobId: "j1", executor: "local", outputUri: trl, nodeName: null },
      { branchId: "b2", branchVersion: 2, jobId: "j2", executor: "local", outputUri: verl, nodeName: null },
      { branchId: "b3", branchVersion: 3, jobId: "j3", executor: "local", outputUri: kept, nodeName: null },
      { branchId: "b4", branchVersion: 4, jobId: "j4", executor: "ssh", outputUri: "/home/evo/.evotrainer/jobs/j4", nodeName: "gpu-1" },
    ];
    const { local, elsewhere } = await weightsToDelete(jobs, new Set(["b1", "b2", "b4"]));
    const linkBytes = join(root, "base-model").length;
    expect(local.map(({ branchId, path, bytes }) => [branchId, path.slice(root.length + 1), bytes])).toEqual([
      ["b1", "trl-job/output/checkpoints", 10],
      ["b1", "trl-job/output/trl/final", 1000 + linkBytes],
      ["b1", "trl-job/output/trl/checkpoint-2", 500],
      ["b2", "verl-job/output/verl/checkpoints", 2000],
    ]);
    expect(elsewhere).toEqual([{ branchId: "b4", branchVersion: 4, jobId: "j4", where: "gpu-1:/home/evo/.evotrainer/jobs/j4" }]);

    for (const weights of local) await deleteWeights(weights);
    expect((await weightsToDelete(jobs, new Set(["b1", "b2"]))).local).toEqual([]);
    // What is not weights stays, and so does the target of a deleted link.
    const left = await weightsToDelete(jobs, new Set(["b3"]));
    expect(left.local.map((w) => w.bytes)).toEqual([40]);
    for (const path of ["trl-job/output/metrics.jsonl", "trl-job/output/trl/completions/completions_00001.parquet", "verl-job/output/verl/rollouts/1.jsonl", "base-model/model.safetensors"]) {
      expect(existsSync(join(root, path)), path).toBe(true);
    }
  });
});
