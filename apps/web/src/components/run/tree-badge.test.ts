import { describe, expect, it } from "vitest";
import { treeBadge } from "./tree-badge";
import type { TreeBranch } from "./tree-layout";

const branch = (over: Partial<TreeBranch>): TreeBranch => ({ id: "b", parentId: null, version: 0, status: "rejected", kind: "candidate", promotionScore: 0.4, factor: null, deltaVsParent: null, ...over });

describe("treeBadge", () => {
  it("calls the base branch on the best-so-far path the reference, never rejected", () => {
    expect(treeBadge(branch({}), true)).toEqual({ text: "reference", status: "reference" });
  });
  it("keeps a promoted base and a base off the best path as they are", () => {
    expect(treeBadge(branch({ status: "promoted" }), true).text).toBe("promoted");
    expect(treeBadge(branch({}), false).text).toBe("rejected");
  });
  it("shows a candidate's own status, and a control's measured score", () => {
    expect(treeBadge(branch({ parentId: "p", status: "awaiting_decision" }), true).text).toBe("awaiting decision");
    expect(treeBadge(branch({ parentId: "p", kind: "control", promotionScore: 0.4567 }), false).text).toBe("measured 0.457");
  });
});
