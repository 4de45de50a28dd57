-- CreateEnum
CREATE TYPE "GateStage" AS ENUM ('diagnosis', 'design', 'backtest', 'completion');

-- DropIndex
DROP INDEX "Detector_label_version_key";

-- AlterTable
ALTER TABLE "Detector" ADD COLUMN     "domains" "Domain"[],
ADD COLUMN     "evidenceCel" TEXT,
ADD COLUMN     "key" TEXT NOT NULL;

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN     "stage" "GateStage" NOT NULL DEFAULT 'completion';

-- CreateIndex
CREATE UNIQUE INDEX "Detector_key_version_key" ON "Detector"("key", "version");
