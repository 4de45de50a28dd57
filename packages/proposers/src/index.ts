// The rule-based proposer (issue 4) and the LLM proposer (issue 8) implement core's proposer interface here.
export {};
