-- AlterTable
ALTER TABLE "GpuNode" ADD COLUMN     "pool" JSONB;
