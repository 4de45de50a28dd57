-- CreateEnum
CREATE TYPE "ReviewVerdict" AS ENUM ('confirmed', 'rejected', 'missed');

-- CreateTable
CREATE TABLE "Review" (
    "id" BIGSERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "branchId" TEXT NOT NULL,
    "rolloutId" BIGINT NOT NULL,
    "label" TEXT NOT NULL,
    "detectorId" TEXT,
    "harnessVersionId" TEXT,
    "flagged" BOOLEAN NOT NULL,
    "verdict" "ReviewVerdict" NOT NULL,
    "reviewerId" TEXT,
    "reviewer" TEXT NOT NULL,
    "note" TEXT,
    "stratum" TEXT,
    "weight" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Review_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Review_runId_label_idx" ON "Review"("runId", "label");

-- CreateIndex
CREATE INDEX "Review_detectorId_idx" ON "Review"("detectorId");

-- CreateIndex
CREATE UNIQUE INDEX "Review_rolloutId_label_key" ON "Review"("rolloutId", "label");

-- AddForeignKey
ALTER TABLE "Review" ADD CONSTRAINT "Review_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Review" ADD CONSTRAINT "Review_reviewerId_fkey" FOREIGN KEY ("reviewerId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
