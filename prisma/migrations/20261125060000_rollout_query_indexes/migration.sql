-- The rollouts explorer pages by id (keyset): each filter it offers gets an index that yields its
-- rows in id order, so a page stops after 101 rows instead of sorting or scanning the branch.
DROP INDEX "Rollout_branchId_split_step_idx";
CREATE INDEX "Rollout_branchId_split_step_id_idx" ON "Rollout"("branchId", "split", "step", "id");
CREATE INDEX "Rollout_branchId_step_id_idx" ON "Rollout"("branchId", "step", "id");
CREATE INDEX "Rollout_branchId_id_idx" ON "Rollout"("branchId", "id");
CREATE INDEX "Rollout_branchId_reward_id_idx" ON "Rollout"("branchId", "reward", "id");

-- A label filter walks the label's rollouts in id order.
DROP INDEX "RolloutLabel_branchId_label_idx";
CREATE INDEX "RolloutLabel_branchId_label_rolloutId_idx" ON "RolloutLabel"("branchId", "label", "rolloutId");
