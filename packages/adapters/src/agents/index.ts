export { TrajectoryShapeError } from "./trajectory-error.ts";
export { openAiTurns, type ConvertedTurns } from "./openai-turns.ts";
export { parseSwebenchReport, swebenchInstanceResult, type SwebenchResult } from "./swebench-report.ts";
export { parseSwebenchV1Log, SWEBENCH_V1_LOG, swebenchV1Result, type SwebenchV1Log, type SwebenchV1Status } from "./swebench-v1-log.ts";
export { miniSweAgentRollout, type MiniSweAgentOptions } from "./mini-swe-agent.ts";
export { sweAgentRollout, type SweAgentOptions } from "./swe-agent.ts";
export { openHandsAttempt, openHandsEvalResults, openHandsRollout, type OpenHandsOptions } from "./openhands.ts";
export { openAiChatRollout, type OpenAiChatOptions } from "./openai-chat.ts";
export { AGENT_FORMATS, agentRolloutOf, type AgentFormat } from "./agent-formats.ts";
