/** What every generated task carries; the rest (answers, tests, fixes) is hidden from the policy. */
export interface TaskCommon {
  id: string;
  // 0 (trivial) to 1 (beyond the base policy): drives solution length and the chance a solve is right.
  difficulty: number;
  prompt: string;
  groundTruth: unknown;
}
