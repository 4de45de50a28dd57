/** Every queue of the loop. One step of the loop = one queue; workers register against these names. */
export const QueueName = {
  Diagnose: "diagnose",
  HarnessCheck: "harness-check",
  Propose: "propose",
  Backtest: "backtest",
  Dispatch: "dispatch",
  Monitor: "monitor",
  Ingest: "ingest",
  Verdict: "verdict",
  Decide: "decide",
  Skills: "skills",
  Reconcile: "reconcile",
} as const;

export type QueueName = (typeof QueueName)[keyof typeof QueueName];

export const queueNames = Object.values(QueueName);
