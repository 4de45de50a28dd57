import { fmtScore } from "../format";
import type { TreeBranch } from "./tree-layout";

/**
 * The word a tree node shows under its factor. The base branch is the run's reference, not a
 * candidate: whatever status its own evaluation left, on the best-so-far path it reads "reference".
 */
export function treeBadge(branch: TreeBranch, onBestPath: boolean): { text: string; status: string } {
  if (branch.kind === "control") return { text: branch.status === "rejected" ? `measured ${fmtScore(branch.promotionScore)}` : branch.status.replace("_", " "), status: branch.status };
  if (branch.parentId === null && onBestPath && branch.status !== "promoted") return { text: "reference", status: "reference" };
  return { text: branch.status.replace("_", " "), status: branch.status };
}
