-- DropIndex
DROP INDEX "QuarantinedLine_source_lineNumber_key";

-- AlterTable
ALTER TABLE "IngestCursor" ADD COLUMN     "headHash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "QuarantinedLine_jobId_source_lineNumber_key" ON "QuarantinedLine"("jobId", "source", "lineNumber");
