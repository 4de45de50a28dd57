export { indexSearchBatch, type SearchBatch } from "./index-search-batch.ts";
export { indexBranchSearch } from "./index-branch-search.ts";
export { branchesLaggingSearch } from "./lagging-branches.ts";
export { searchRolloutIds, type RolloutSearchFilter } from "./search-rollouts.ts";
export { TEXT_CAP } from "./search-document.ts";
export { UNINDEXED_COUNT_LIMIT, unindexedRollouts } from "./unindexed-rollouts.ts";
