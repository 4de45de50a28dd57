-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "testResults" JSONB;
