-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "cancelRequestedAt" TIMESTAMP(3);
