-- The rollouts explorer's free-text search. A trigram index on "Rollout"'s own text slowed ingest
-- of real SWE trajectories (100 KB each) from >= 20 MB/s to 11-15 MB/s, so the search documents
-- live in a table of their own that the worker fills after ingest commits (queue "search"); rows
-- not yet indexed are matched on "Rollout" directly. btree_gin lets the trigram index lead with
-- the branch, so a term common in other branches costs this branch nothing.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- CreateTable
CREATE TABLE "RolloutSearch" (
    "rolloutId" BIGINT NOT NULL,
    "branchId" TEXT NOT NULL,
    "split" "Split" NOT NULL,
    "taskId" TEXT NOT NULL,
    "prompt" TEXT,
    "response" TEXT,
    "complete" BOOLEAN NOT NULL,

    CONSTRAINT "RolloutSearch_pkey" PRIMARY KEY ("rolloutId")
);

-- CreateTable
CREATE TABLE "RolloutSearchProgress" (
    "branchId" TEXT NOT NULL,
    "indexedThrough" BIGINT NOT NULL DEFAULT 0,
    "settledThrough" BIGINT NOT NULL DEFAULT 0,
    "observedThrough" BIGINT,
    "observedWriters" TEXT[] DEFAULT ARRAY[]::TEXT[],

    CONSTRAINT "RolloutSearchProgress_pkey" PRIMARY KEY ("branchId")
);

-- CreateIndex
CREATE INDEX "RolloutSearch_branchId_taskId_prompt_response_idx" ON "RolloutSearch" USING GIN ("branchId" text_ops, "taskId" gin_trgm_ops, "prompt" gin_trgm_ops, "response" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "RolloutSearch_branchId_complete_rolloutId_idx" ON "RolloutSearch"("branchId", "complete", "rolloutId");

-- AddForeignKey
ALTER TABLE "RolloutSearch" ADD CONSTRAINT "RolloutSearch_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolloutSearchProgress" ADD CONSTRAINT "RolloutSearchProgress_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Whether a term is rare (the trigram index) or common (the branch's rows in id order) is guessed
-- from the histogram of each field: a LIKE '%term%' is judged by the share of histogram entries it
-- matches, and the default 100 entries cannot tell a term in 0.05% of rollouts from one in 1%.
-- Prisma's schema cannot say this; it leaves the statistics targets alone.
ALTER TABLE "RolloutSearch" ALTER COLUMN "taskId" SET STATISTICS 1000;
ALTER TABLE "RolloutSearch" ALTER COLUMN "prompt" SET STATISTICS 1000;
ALTER TABLE "RolloutSearch" ALTER COLUMN "response" SET STATISTICS 1000;
