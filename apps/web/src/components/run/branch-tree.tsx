"use client";

import { memo, useMemo, useState } from "react";
import { Background, Controls, Handle, Position, ReactFlow, type Edge, type Node, type NodeProps } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { fmtDelta } from "../format";
import { treeBadge } from "./tree-badge";
import { bestPathOf, initialCollapsed, layoutTree, NODE_HEIGHT, NODE_WIDTH, type LaidOutNode, type TreeBranch } from "./tree-layout";

type BranchNodeData = LaidOutNode & { href: string; collapsed: boolean; toggle: (id: string) => void };

const BranchNode = memo(function BranchNode({ data }: NodeProps<Node<BranchNodeData>>) {
  const { branch } = data;
  const badge = treeBadge(branch, data.onBestPath);
  const factor = branch.kind === "control" ? "control · parent's recipe" : (branch.factor ?? "base");
  return (
    <div
      className={branch.kind === "control" ? "tree-node tree-control" : `tree-node status-bg-${badge.status}${data.onBestPath ? " best" : ""}`}
      style={{ width: NODE_WIDTH, height: NODE_HEIGHT }}
      data-testid={`tree-node-v${branch.version}`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      {/* The whole factor name stays readable: it wraps inside the node and is the link's tooltip. */}
      <a href={data.href} className="tree-node-link" title={`v${branch.version} · ${factor} · ${badge.text}`}>
        <strong>v{branch.version}</strong> <span className="tree-delta">{fmtDelta(branch.deltaVsParent)}</span>
        <div className="tree-factor">{factor}</div>
        <div className="tree-status" data-testid="tree-badge">
          {badge.text}
        </div>
      </a>
      {data.hasChildren && (
        <button className="tree-toggle" onClick={() => data.toggle(branch.id)} aria-label={data.collapsed ? `expand v${branch.version}` : `collapse v${branch.version}`}>
          {data.collapsed ? `+${data.hiddenDescendants}` : "−"}
        </button>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { branch: BranchNode };

export function BranchTree({ branches, bestBranchId, basePath }: { branches: TreeBranch[]; bestBranchId: string | null; basePath: string }) {
  const bestPath = useMemo(() => bestPathOf(branches, bestBranchId), [branches, bestBranchId]);
  // Folding is the viewer's choice once made; new branches arriving do not re-fold the tree.
  const [collapsed, setCollapsed] = useState<Set<string> | null>(null);
  const folded = useMemo(() => collapsed ?? initialCollapsed(branches, bestPath), [collapsed, branches, bestPath]);
  const toggle = (id: string) =>
    setCollapsed(() => {
      const next = new Set(folded);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const { nodes, edges } = useMemo(() => {
    const laid = layoutTree(branches, folded, bestPath);
    const nodes: Node<BranchNodeData>[] = laid.map((n) => ({
      id: n.branch.id,
      type: "branch",
      position: { x: n.x, y: n.y },
      data: { ...n, href: `${basePath}/branches/${n.branch.id}`, collapsed: folded.has(n.branch.id), toggle },
      draggable: false,
    }));
    const shown = new Set(nodes.map((n) => n.id));
    const edges: Edge[] = laid
      .filter((n) => n.branch.parentId && shown.has(n.branch.parentId))
      .map((n) => ({
        id: `${n.branch.parentId}-${n.branch.id}`,
        source: n.branch.parentId!,
        target: n.branch.id,
        className: n.onBestPath ? "edge-best" : undefined,
        style: n.onBestPath ? { stroke: "#f2cc60", strokeWidth: 3 } : { stroke: "#4a5163" },
      }));
    return { nodes, edges };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [branches, folded, bestPath, basePath]);

  if (branches.length === 0) return <div className="empty">No branches yet: the loop creates the base branch when the run starts.</div>;
  return (
    <div className="tree" data-testid="branch-tree">
      {/* Each branch's link is its one tab stop: edges and node wrappers would come first in tab order otherwise. */}
      {/* `fitView` fits at mount only: a tree that grows is mounted again at its new size, so no node lands past the pane's edge. */}
      <ReactFlow key={nodes.length} colorMode="dark" nodes={nodes} edges={edges} nodeTypes={nodeTypes} fitView minZoom={0.05} nodesConnectable={false} nodesFocusable={false} edgesFocusable={false} proOptions={{ hideAttribution: true }}>
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
