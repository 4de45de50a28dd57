/**
 * Every queue of the loop; workers register against these names. A queue is one durable step:
 * `propose` diagnoses, checks the harness, proposes and backtests in one transaction; `monitor`
 * ingests what a running job wrote; `decide` settles a branch and learns its skills.
 */
export const QueueName = {
  Propose: "propose",
  Dispatch: "dispatch",
  Monitor: "monitor",
  Verdict: "verdict",
  Decide: "decide",
  Reconcile: "reconcile",
} as const;

export type QueueName = (typeof QueueName)[keyof typeof QueueName];

export const queueNames = Object.values(QueueName);
