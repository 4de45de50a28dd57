/** A GPU node as the scheduler sees it. */
export interface SchedulableNode {
  id: string;
  name: string;
  gpuCount: number;
  labels: Readonly<Record<string, string>>;
  enabled: boolean;
}

/** GPUs held by a job that is submitted or running on a node. */
export interface GpuAllocation {
  nodeId: string;
  gpuIndexes: readonly number[];
}

export interface PlacementRequest {
  gpus: number;
  /** A node takes the job only if it carries every one of these labels. */
  labels: Readonly<Record<string, string>>;
  /** Only this node: it holds what the job resumes from (the parent's checkpoint, a retried attempt's outputs). */
  nodeId?: string;
}

const fits = (node: SchedulableNode, request: PlacementRequest) =>
  node.enabled && (request.nodeId === undefined || node.id === request.nodeId) && Object.entries(request.labels).every(([key, value]) => node.labels[key] === value);

export type Placement =
  | { placed: true; nodeId: string; gpuIndexes: number[] }
  | { placed: false; reason: string };

/**
 * Places one job on free GPU slots: among enabled nodes with the requested labels and enough free
 * GPUs (and the pinned node, when the job must resume where its files are), the one that would have the fewest left (best fit keeps whole nodes free for big jobs),
 * then by name so the choice is stable. Jobs that fit nowhere now wait; a job that could never fit
 * says so, since waiting would not help it.
 */
export function placeJob(nodes: readonly SchedulableNode[], allocations: readonly GpuAllocation[], request: PlacementRequest): Placement {
  const matching = nodes.filter((node) => fits(node, request));
  const pinned = request.nodeId === undefined ? [] : [`node ${nodes.find((n) => n.id === request.nodeId)?.name ?? request.nodeId}`];
  const wanted = [...pinned, ...Object.entries(request.labels).map(([key, value]) => `${key}=${value}`)].join(", ") || "any labels";
  if (matching.length === 0) return { placed: false, reason: `no enabled GPU node matches ${wanted}` };
  if (!matching.some((node) => node.gpuCount >= request.gpus)) {
    return { placed: false, reason: `no node with ${wanted} has ${request.gpus} GPUs (largest: ${Math.max(...matching.map((n) => n.gpuCount))})` };
  }
  const candidates = matching
    .map((node) => {
      const held = new Set(allocations.filter((a) => a.nodeId === node.id).flatMap((a) => a.gpuIndexes));
      const free = Array.from({ length: node.gpuCount }, (_, index) => index).filter((index) => !held.has(index));
      return { node, free };
    })
    .filter(({ free }) => free.length >= request.gpus)
    .sort((a, b) => a.free.length - b.free.length || a.node.name.localeCompare(b.node.name));
  const best = candidates[0];
  if (!best) return { placed: false, reason: `all GPUs of the nodes with ${wanted} are in use; the job waits for a free slot` };
  return { placed: true, nodeId: best.node.id, gpuIndexes: best.free.slice(0, request.gpus) };
}

/** Whether a placement failure can clear by waiting (slots in use) or never will (no such node). */
export function placementCanWait(nodes: readonly SchedulableNode[], request: PlacementRequest): boolean {
  return nodes.some((node) => fits(node, request) && node.gpuCount >= request.gpus);
}
