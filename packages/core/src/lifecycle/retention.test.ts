import { describe, expect, it } from "vitest";
import { branchesToClean, RETENTION_DUE_RUN_STATUSES, retentionPlan, type RetentionFacts } from "./retention.ts";
import { BRANCH_STATUSES, RUN_STATUSES } from "./statuses.ts";

const outcomes = (facts: RetentionFacts) => Object.fromEntries(retentionPlan(facts).map((d) => [d.branchId, d.outcome === "keep" ? `keep:${d.reason}` : `delete:${d.status}`]));

describe("retentionPlan: whose model weights a run keeps", () => {
  it("after the run: keeps the best and the promoted lineage, deletes rejected, vetoed, failed, cancelled and controls", () => {
    const facts: RetentionFacts = {
      bestBranchId: "v3",
      proposalParentIds: [],
      branches: [
        { id: "v0", status: "promoted", parentId: null },
        { id: "v1", status: "promoted", parentId: "v0" },
        { id: "v2", status: "rejected", parentId: "v0" },
        { id: "v3", status: "promoted", parentId: "v1" },
        { id: "v4", status: "vetoed", parentId: "v1" },
        { id: "v5", status: "failed", parentId: "v3" },
        { id: "v6", status: "cancelled", parentId: "v3" },
      ],
    };
    expect(outcomes(facts)).toEqual({
      v0: "keep:promoted", v1: "keep:promoted", v2: "delete:rejected", v3: "keep:best", v4: "delete:vetoed", v5: "delete:failed", v6: "delete:cancelled",
    });
  });

  it("never deletes a checkpoint a queued or training branch, or a pending proposal, still needs as its parent", () => {
    const facts: RetentionFacts = {
      bestBranchId: "v0",
      proposalParentIds: ["r3"],
      branches: [
        { id: "v0", status: "promoted", parentId: null },
        // A rejected branch is a parent of a queued one (a control trained from it, say): kept while that one is open.
        { id: "r1", status: "rejected", parentId: "v0" },
        { id: "q", status: "queued", parentId: "r1" },
        { id: "r2", status: "rejected", parentId: "v0" },
        { id: "t", status: "training", parentId: "r2" },
        { id: "r3", status: "rejected", parentId: "v0" },
        { id: "r4", status: "rejected", parentId: "v0" },
        { id: "done", status: "rejected", parentId: "r4" },
      ],
    };
    expect(outcomes(facts)).toEqual({
      v0: "keep:best", r1: "keep:parent", q: "keep:open", r2: "keep:parent", t: "keep:open", r3: "keep:parent", r4: "delete:rejected", done: "delete:rejected",
    });
  });

  it("keeps every open branch whatever its status, and deletes only settled, unpromoted ones", () => {
    const branches = BRANCH_STATUSES.map((status) => ({ id: status, status, parentId: null }));
    const plan = retentionPlan({ bestBranchId: null, proposalParentIds: [], branches });
    expect(plan.filter((d) => d.outcome === "delete").map((d) => d.branchId).sort()).toEqual(["cancelled", "failed", "rejected", "vetoed"]);
    expect([...branchesToClean({ bestBranchId: null, proposalParentIds: [], branches })].sort()).toEqual(["cancelled", "failed", "rejected", "vetoed"]);
  });

  it("is due after the run only once the run has ended", () => {
    expect(RUN_STATUSES.filter((s) => (RETENTION_DUE_RUN_STATUSES as readonly string[]).includes(s))).toEqual(["completed", "failed", "cancelled"]);
  });
});
