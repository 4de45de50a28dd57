-- AlterTable
ALTER TABLE "GpuNode" ADD COLUMN     "workRoot" TEXT NOT NULL DEFAULT '.evotrainer/jobs';

-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "gpuIndexes" INTEGER[] DEFAULT ARRAY[]::INTEGER[];
