import { stratify, tree, type HierarchyPointNode } from "d3-hierarchy";

export type TreeBranch = {
  id: string;
  parentId: string | null;
  version: number;
  status: string;
  /** A control is the round's baseline (the parent's recipe again), drawn apart from candidates. */
  kind: "candidate" | "control";
  promotionScore: number | null;
  factor: string | null;
  deltaVsParent: number | null;
};

// A type alias, not an interface: React Flow node data must be indexable.
export type LaidOutNode = {
  branch: TreeBranch;
  x: number;
  y: number;
  hiddenDescendants: number;
  hasChildren: boolean;
  onBestPath: boolean;
};

const VIRTUAL_ROOT = "__root";
export const NODE_WIDTH = 170;
export const NODE_HEIGHT = 78;
/**
 * React Flow stays responsive up to about a thousand DOM nodes, but drawing them is most of the time
 * a large run's page takes to open; past a few hundred, fitted to the pane, nodes are too small to read.
 */
export const MAX_RENDERED_NODES = 400;

export function bestPathOf(branches: TreeBranch[], bestBranchId: string | null): Set<string> {
  const byId = new Map(branches.map((b) => [b.id, b]));
  const path = new Set<string>();
  for (let b = bestBranchId ? byId.get(bestBranchId) : undefined; b; b = b.parentId ? byId.get(b.parentId) : undefined) path.add(b.id);
  return path;
}

/**
 * The subtrees to fold when the page opens: the shallowest depth at which the tree would exceed the
 * node budget is folded, except along the best-so-far path, which always stays open.
 */
export function initialCollapsed(branches: TreeBranch[], bestPath: Set<string>): Set<string> {
  if (branches.length <= MAX_RENDERED_NODES) return new Set();
  const byId = new Map(branches.map((b) => [b.id, b]));
  const depthOf = new Map<string, number>();
  const depth = (b: TreeBranch): number => {
    const known = depthOf.get(b.id);
    if (known !== undefined) return known;
    const parent = b.parentId ? byId.get(b.parentId) : undefined;
    const d = parent ? depth(parent) + 1 : 0;
    depthOf.set(b.id, d);
    return d;
  };
  const perDepth: number[] = [];
  for (const b of branches) perDepth[depth(b)] = (perDepth[depth(b)] ?? 0) + 1;
  let cut = 0;
  for (let total = 0; cut < perDepth.length && total + (perDepth[cut] ?? 0) <= MAX_RENDERED_NODES; cut++) total += perDepth[cut] ?? 0;
  const foldAt = Math.max(cut - 1, 0);
  const hasChildren = new Set(branches.map((b) => b.parentId));
  return new Set(branches.filter((b) => depth(b) === foldAt && hasChildren.has(b.id) && !bestPath.has(b.id)).map((b) => b.id));
}

/** d3-hierarchy's tidy tree over the branches, with folded subtrees left out. Linear in the branch count. */
export function layoutTree(branches: TreeBranch[], collapsed: Set<string>, bestPath: Set<string>): LaidOutNode[] {
  if (branches.length === 0) return [];
  const byId = new Map(branches.map((b) => [b.id, b]));
  const rows: { id: string; parentId: string | null }[] = [{ id: VIRTUAL_ROOT, parentId: null }];
  for (const b of branches) rows.push({ id: b.id, parentId: b.parentId && byId.has(b.parentId) ? b.parentId : VIRTUAL_ROOT });
  const root = stratify<(typeof rows)[number]>()
    .id((d) => d.id)
    .parentId((d) => d.parentId)(rows);
  const hidden = new Map<string, number>();
  root.each((node) => {
    if (collapsed.has(node.id!) && node.children) {
      hidden.set(node.id!, node.descendants().length - 1);
      node.children = undefined;
    }
  });
  const laid = tree<(typeof rows)[number]>().nodeSize([NODE_WIDTH + 30, NODE_HEIGHT + 50])(root);
  const out: LaidOutNode[] = [];
  laid.each((node: HierarchyPointNode<(typeof rows)[number]>) => {
    if (node.id === VIRTUAL_ROOT) return;
    // The branch as loaded, not the layout's row: a root's parent stays null rather than the virtual root.
    const branch = byId.get(node.id!)!;
    out.push({
      branch,
      x: node.x,
      y: node.y - (NODE_HEIGHT + 50),
      hiddenDescendants: hidden.get(branch.id) ?? 0,
      hasChildren: Boolean(node.children?.length) || hidden.has(branch.id),
      onBestPath: bestPath.has(branch.id),
    });
  });
  return out;
}
