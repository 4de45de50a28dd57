import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { weightsToDelete, type WeightsJob } from "./job-weights.ts";
import { localWeightsPlace } from "./local/local-weights-files.ts";

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

    const jobs: WeightsJob[] = [
      { branchId: "b1", branchVersion: 1, jobId: "j1", executor: "local", outputUri: trl, nodeId: null, nodeName: null },
      { branchId: "b2", branchVersion: 2, jobId: "j2", executor: "local", outputUri: verl, nodeId: null, nodeName: null },
      { branchId: "b3", branchVersion: 3, jobId: "j3", executor: "local", outputUri: kept, nodeId: null, nodeName: null },
      { branchId: "b4", branchVersion: 4, jobId: "j4", executor: "ssh", outputUri: "/home/evo/.evotrainer/jobs/j4", nodeId: "n1", nodeName: "gpu-1" },
    ];
    // The node of b4 cannot be reached from here: its job is listed with the reason, the others are found.
    const open = async (job: WeightsJob) => {
      if (job.executor !== "local") throw new Error("ssh node gpu-1 refused the connection");
      return localWeightsPlace(job.outputUri);
    };
    const local = async (branchIds: string[]) => (await weightsToDelete(jobs, new Set(branchIds), open)).found;
    const { found, elsewhere } = await weightsToDelete(jobs, new Set(["b1", "b2", "b4"]), open);
    const linkBytes = join(root, "base-model").length;
    expect(found.map(({ weights: { branchId, path, bytes, where } }) => [branchId, path.slice(root.length + 1), bytes, where])).toEqual([
      ["b1", "trl-job/output/checkpoints", 10, "local"],
      ["b1", "trl-job/output/trl/final", 1000 + linkBytes, "local"],
      ["b1", "trl-job/output/trl/checkpoint-2", 500, "local"],
      ["b2", "verl-job/output/verl/checkpoints", 2000, "local"],
    ]);
    expect(elsewhere).toEqual([{ branchId: "b4", branchVersion: 4, jobId: "j4", where: "gpu-1:/home/evo/.evotrainer/jobs/j4", why: "ssh node gpu-1 refused the connection" }]);

    for (const { remove } of found) await remove();
    expect(await local(["b1", "b2"])).toEqual([]);
    // What is not weights stays, and so does the target of a deleted link.
    expect((await local(["b3"])).map(({ weights }) => weights.bytes)).toEqual([40]);
    for (const path of ["trl-job/output/metrics.jsonl", "trl-job/output/trl/completions/completions_00001.parquet", "verl-job/output/verl/rollouts/1.jsonl", "base-model/model.safetensors"]) {
      expect(existsSync(join(root, path)), path).toBe(true);
    }
  });
});
