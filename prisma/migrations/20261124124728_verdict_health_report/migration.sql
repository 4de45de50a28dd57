-- AlterTable
ALTER TABLE "Verdict" ADD COLUMN     "healthReport" JSONB;
