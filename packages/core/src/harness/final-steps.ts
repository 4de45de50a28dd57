/**
 * Training steps whose rollouts describe a branch as its training ended: what the gate judges,
 * the next round diagnoses and backtests on, and the harness check replays detectors over.
 */
export const FINAL_TRAIN_STEPS = 3;
