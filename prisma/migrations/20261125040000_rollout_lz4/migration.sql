-- Rollout text and trajectories are large (real SWE trajectories run 100-200 KB): lz4 compresses
-- them for TOAST about twice as fast as the default pglz, and ingest pays that on every row.
-- Prisma's schema cannot say this; it leaves column compression alone.
ALTER TABLE "Rollout" ALTER COLUMN "prompt" SET COMPRESSION lz4;
ALTER TABLE "Rollout" ALTER COLUMN "response" SET COMPRESSION lz4;
ALTER TABLE "Rollout" ALTER COLUMN "trajectory" SET COMPRESSION lz4;
ALTER TABLE "Rollout" ALTER COLUMN "extra" SET COMPRESSION lz4;
ALTER TABLE "Rollout" ALTER COLUMN "testResults" SET COMPRESSION lz4;
