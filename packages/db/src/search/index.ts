export { indexSearchBatch, type SearchBatch } from "./index-search-batch.ts";
export { indexBranchSearch } from "./index-branch-search.ts";
export { branchesLaggingSearch } from "./lagging-branches.ts";
export { searchRolloutIds, type RolloutSearchFilter } from "./search-rollouts.ts";
export { DOCUMENT_CAP } from "./search-document.ts";
