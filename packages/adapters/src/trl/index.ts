export { trlAdapter } from "./trl-adapter.ts";
export { generationBatch, trlArgs, trlPaths, type TrlValue } from "./trl-args.ts";
export { readTrlCompletions, trlCompletionsToRollouts, trlRowKey, type TrlCompletionRow, type TrlCompletionsOptions } from "./trl-completions.ts";
export { trlLogHistoryToContract } from "./trl-metrics.ts";
export { readTrlRun, trlRunLayout, type TrlRunFiles } from "./trl-run-dir.ts";
