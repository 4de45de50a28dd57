-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "attemptGpuSeconds" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "attemptStartedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "StepAttempt" (
    "jobId" TEXT NOT NULL,
    "stream" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "attempt" INTEGER NOT NULL,

    CONSTRAINT "StepAttempt_pkey" PRIMARY KEY ("jobId","stream","step")
);

-- AddForeignKey
ALTER TABLE "StepAttempt" ADD CONSTRAINT "StepAttempt_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;
