-- A rollout without a known result (an imported trajectory the harness never scored) keeps a null
-- reward instead of 0: unknown is not a failure.
ALTER TABLE "Rollout" ALTER COLUMN "reward" DROP NOT NULL;

-- reward_mean divides by the rollouts with a reward; every stored rollout had one until now.
ALTER TABLE "StepStat" ADD COLUMN "rewarded" INTEGER;
UPDATE "StepStat" SET "rewarded" = "rollouts";
ALTER TABLE "StepStat" ALTER COLUMN "rewarded" SET NOT NULL;

-- A group is alive or dead by its rollouts with a reward.
ALTER TABLE "StepGroupStat" RENAME COLUMN "rollouts" TO "rewarded";
ALTER TABLE "StepGroupStat" ALTER COLUMN "minReward" DROP NOT NULL;
ALTER TABLE "StepGroupStat" ALTER COLUMN "maxReward" DROP NOT NULL;
