export { loadBranchRollouts, loadLastTrainSteps } from "./branch-rollouts.ts";
export { createRun, storeRecipe, type CreatedRun, type CreateRunOptions } from "./create-run.ts";
export { recordEvent, type EventType, type Tx } from "./events.ts";
export { loadHarnessVersion, registerHarnessVersion } from "./harness-versions.ts";
export { listGpuNodes, sshPrivateKeyOf, upsertGpuNode, upsertKubernetesPool, type GpuNodeInput, type GpuNodeSummary, type SshKeySource } from "./gpu-nodes.ts";
export { json } from "./json.ts";
export { buildRunReport, type RunReport } from "./run-report.ts";
export { recordDecision, type DecisionActor, type DecisionRecord, type DecisionRequest } from "./decisions.ts";
