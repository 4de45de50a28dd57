-- Slurm clusters are rows of GpuNode (their settings in "pool"), and jobs run on them.
ALTER TYPE "ExecutorKind" ADD VALUE 'slurm';

-- A cluster's partitions as sinfo last showed them to the worker.
ALTER TABLE "GpuNode" ADD COLUMN "partitions" JSONB;
