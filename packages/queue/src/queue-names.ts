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
  // A stopped run: cancel its jobs through their executors, then finish it as the stop asked.
  Control: "control",
  // One webhook delivery attempt; outbox rows reach it through the reconcile sweep's relay.
  Notify: "notify",
  // A branch's rollouts into the explorer's search index, after ingest committed them.
  Search: "search",
  // A question before a run exists: do the run's trainer arguments hold where its jobs would run?
  // Asked by the CLI and the API, answered by a worker, which holds the executors' credentials.
  TrainerArgs: "trainer-args",
} as const;

export type QueueName = (typeof QueueName)[keyof typeof QueueName];

export const queueNames = Object.values(QueueName);
