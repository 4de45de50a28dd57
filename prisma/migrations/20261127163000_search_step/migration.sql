-- The rollout's step on its search row, and in the trigram index beside the branch: a text search
-- at a step seeks the step and the term in one index scan, instead of reading every rollout of the
-- branch that holds a common term and dropping those of other steps.
DROP INDEX "RolloutSearch_branchId_taskId_prompt_response_idx";

ALTER TABLE "RolloutSearch" ADD COLUMN "step" INTEGER;
UPDATE "RolloutSearch" s SET "step" = r."step" FROM "Rollout" r WHERE r."id" = s."rolloutId";
ALTER TABLE "RolloutSearch" ALTER COLUMN "step" SET NOT NULL;

CREATE INDEX "RolloutSearch_branchId_step_taskId_prompt_response_idx" ON "RolloutSearch" USING GIN ("branchId" text_ops, "step" int4_ops, "taskId" gin_trgm_ops, "prompt" gin_trgm_ops, "response" gin_trgm_ops);
