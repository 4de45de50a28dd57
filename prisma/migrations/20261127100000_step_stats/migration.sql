-- Exact running totals per step and per group, so that each ingest batch adds its own rows to the
-- step MetricPoints instead of re-reading every row of the steps it touched (quadratic in rows per step).
CREATE TABLE "StepStat" (
    "branchId" TEXT NOT NULL,
    "split" "Split" NOT NULL,
    "step" INTEGER NOT NULL,
    "rollouts" INTEGER NOT NULL,
    "rewardSum" DECIMAL(65,30) NOT NULL,
    "truncated" INTEGER NOT NULL,
    "responseTokens" BIGINT NOT NULL,
    "groups" INTEGER NOT NULL,
    "deadGroups" INTEGER NOT NULL,

    CONSTRAINT "StepStat_pkey" PRIMARY KEY ("branchId","split","step")
);

CREATE TABLE "StepGroupStat" (
    "branchId" TEXT NOT NULL,
    "split" "Split" NOT NULL,
    "step" INTEGER NOT NULL,
    "groupId" TEXT NOT NULL,
    "rollouts" INTEGER NOT NULL,
    "minReward" DOUBLE PRECISION NOT NULL,
    "maxReward" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "StepGroupStat_pkey" PRIMARY KEY ("branchId","split","step","groupId")
);

ALTER TABLE "StepStat" ADD CONSTRAINT "StepStat_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "StepGroupStat" ADD CONSTRAINT "StepGroupStat_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The totals of the rollouts already stored, so the next batch adds to the right numbers.
INSERT INTO "StepGroupStat" ("branchId", "split", "step", "groupId", "rollouts", "minReward", "maxReward")
SELECT "branchId", "split", "step", "groupId", count(*), min("reward"), max("reward")
  FROM "Rollout" GROUP BY "branchId", "split", "step", "groupId";

INSERT INTO "StepStat" ("branchId", "split", "step", "rollouts", "rewardSum", "truncated", "responseTokens", "groups", "deadGroups")
SELECT r."branchId", r."split", r."step", r.rollouts, r.reward_sum, r.truncated, r.tokens, g.groups, g.dead
  FROM (SELECT "branchId", "split", "step", count(*) AS rollouts, sum("reward"::numeric) AS reward_sum,
               sum("truncated"::int) AS truncated, sum("responseTokens") AS tokens
          FROM "Rollout" GROUP BY "branchId", "split", "step") r
  JOIN (SELECT "branchId", "split", "step", count(*) FILTER (WHERE "rollouts" >= 2) AS groups,
               count(*) FILTER (WHERE "rollouts" >= 2 AND "minReward" = "maxReward") AS dead
          FROM "StepGroupStat" GROUP BY "branchId", "split", "step") g USING ("branchId", "split", "step");
