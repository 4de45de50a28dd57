-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "advantage" DOUBLE PRECISION,
ADD COLUMN     "tokens" JSONB;
