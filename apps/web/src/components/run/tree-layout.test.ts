import { describe, expect, it } from "vitest";
import { treeBadge } from "./tree-badge";
import { bestPathOf, initialCollapsed, layoutTree, MAX_RENDERED_NODES, type TreeBranch } from "./tree-layout";

const branch = (id: string, parentId: string | null, version: number): TreeBranch => ({ id, parentId, version, status: "promoted", kind: "candidate", promotionScore: null, factor: null, deltaVsParent: null });

describe("tree layout", () => {
  it("lays out every branch, children below parents, and marks the best-so-far path", () => {
    const branches = [branch("a", null, 0), branch("b", "a", 1), branch("c", "a", 2), branch("d", "b", 3)];
    const best = bestPathOf(branches, "d");
    const laid = layoutTree(branches, new Set(), best);
    const at = Object.fromEntries(laid.map((n) => [n.branch.id, n]));
    expect(laid).toHaveLength(4);
    expect(at.b!.y).toBeGreaterThan(at.a!.y);
    expect([...best].sort()).toEqual(["a", "b", "d"]);
    expect(at.c!.onBestPath).toBe(false);
  });

  it("hands each node the branch as loaded: the base keeps its null parent, so a rejected base on the best path reads 'reference'", () => {
    const branches = [{ ...branch("a", null, 0), status: "rejected" }, branch("b", "a", 1)];
    const laid = layoutTree(branches, new Set(), bestPathOf(branches, "a"));
    expect(laid[0]!.branch).toBe(branches[0]);
    expect(treeBadge(laid[0]!.branch, laid[0]!.onBestPath).text).toBe("reference");
  });

  it("folds a collapsed subtree and counts what it hides", () => {
    const branches = [branch("a", null, 0), branch("b", "a", 1), branch("c", "b", 2), branch("d", "c", 3)];
    const laid = layoutTree(branches, new Set(["b"]), new Set());
    expect(laid.map((n) => n.branch.id)).toEqual(["a", "b"]);
    expect(laid[1]!.hiddenDescendants).toBe(2);
  });

  it("keeps a 2,000-branch tree under the node budget without folding the best path", () => {
    const branches = [branch("0", null, 0)];
    for (let i = 1; i < 2000; i++) branches.push(branch(String(i), String(Math.floor((i - 1) / 3)), i));
    const best = bestPathOf(branches, "1999");
    const laid = layoutTree(branches, initialCollapsed(branches, best), best);
    expect(laid.length).toBeLessThanOrEqual(MAX_RENDERED_NODES + 20);
    expect(laid.some((n) => n.branch.id === "1999")).toBe(true);
  });
});
