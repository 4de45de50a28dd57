import { describe, expect, it } from "vitest";
import { placeJob, placementCanWait, type SchedulableNode } from "./place-job.ts";

const node = (id: string, gpuCount: number, labels: Record<string, string> = {}, enabled = true): SchedulableNode => ({ id, name: id, gpuCount, labels, enabled });

describe("placeJob", () => {
  it("takes free GPU indexes of a matching node", () => {
    const placement = placeJob([node("a", 4)], [{ nodeId: "a", gpuIndexes: [0, 2] }], { gpus: 2, labels: {} });
    expect(placement).toEqual({ placed: true, nodeId: "a", gpuIndexes: [1, 3] });
  });

  it("prefers the node that keeps the most whole nodes free (best fit)", () => {
    const nodes = [node("big", 8), node("half-used", 8)];
    const placement = placeJob(nodes, [{ nodeId: "half-used", gpuIndexes: [0, 1, 2, 3, 4, 5] }], { gpus: 2, labels: {} });
    expect(placement).toMatchObject({ placed: true, nodeId: "half-used", gpuIndexes: [6, 7] });
  });

  it("only places on nodes with every requested label, and never on disabled nodes", () => {
    const nodes = [node("a100", 8, { gpu: "a100" }, false), node("h100", 8, { gpu: "h100", zone: "eu" }), node("h100-us", 8, { gpu: "h100", zone: "us" })];
    expect(placeJob(nodes, [], { gpus: 1, labels: { gpu: "h100", zone: "us" } })).toMatchObject({ nodeId: "h100-us" });
    expect(placeJob(nodes, [], { gpus: 1, labels: { gpu: "a100" } })).toEqual({ placed: false, reason: "no enabled GPU node matches gpu=a100" });
  });

  it("keeps a pinned job on its node even when another has room", () => {
    const nodes = [node("a", 1), node("b", 8)];
    expect(placeJob(nodes, [], { gpus: 1, labels: {}, nodeId: "a" })).toMatchObject({ placed: true, nodeId: "a" });
    expect(placeJob(nodes, [{ nodeId: "a", gpuIndexes: [0] }], { gpus: 1, labels: {}, nodeId: "a" })).toMatchObject({ placed: false });
    expect(placementCanWait(nodes, { gpus: 1, labels: {}, nodeId: "a" })).toBe(true);
  });

  it("queues a job when every slot is taken, and says when it could never fit", () => {
    const nodes = [node("a", 2)];
    const full = placeJob(nodes, [{ nodeId: "a", gpuIndexes: [0, 1] }], { gpus: 1, labels: {} });
    expect(full).toMatchObject({ placed: false, reason: expect.stringContaining("waits for a free slot") });
    expect(placementCanWait(nodes, { gpus: 1, labels: {} })).toBe(true);
    const never = placeJob(nodes, [], { gpus: 4, labels: {} });
    expect(never).toMatchObject({ placed: false, reason: expect.stringContaining("has 4 GPUs (largest: 2)") });
    expect(placementCanWait(nodes, { gpus: 4, labels: {} })).toBe(false);
  });

  it("places CPU-only jobs (0 GPUs) on any matching node without holding a slot", () => {
    expect(placeJob([node("a", 1)], [{ nodeId: "a", gpuIndexes: [0] }], { gpus: 0, labels: {} })).toEqual({ placed: true, nodeId: "a", gpuIndexes: [] });
  });

  it("fills a node slot by slot until the next job has to wait", () => {
    const nodes = [node("a", 3)];
    const held: { nodeId: string; gpuIndexes: number[] }[] = [];
    for (let i = 0; i < 3; i++) {
      const placement = placeJob(nodes, held, { gpus: 1, labels: {} });
      if (!placement.placed) throw new Error(placement.reason);
      held.push({ nodeId: placement.nodeId, gpuIndexes: placement.gpuIndexes });
    }
    expect(held.flatMap((h) => h.gpuIndexes)).toEqual([0, 1, 2]);
    expect(placeJob(nodes, held, { gpus: 1, labels: {} }).placed).toBe(false);
  });
});
