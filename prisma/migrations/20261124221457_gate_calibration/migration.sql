-- CreateTable
CREATE TABLE "GateCalibration" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "runId" TEXT,
    "domain" "Domain" NOT NULL,
    "configHash" TEXT NOT NULL,
    "seed" INTEGER NOT NULL,
    "trials" INTEGER NOT NULL,
    "nullCandidates" INTEGER NOT NULL,
    "falsePromotions" INTEGER NOT NULL,
    "falsePromotionRate" DOUBLE PRECISION NOT NULL,
    "falsePromotionLow" DOUBLE PRECISION NOT NULL,
    "falsePromotionHigh" DOUBLE PRECISION NOT NULL,
    "power" JSONB NOT NULL,
    "gateParameters" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GateCalibration_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "GateCalibration_runId_createdAt_idx" ON "GateCalibration"("runId", "createdAt");

-- CreateIndex
CREATE INDEX "GateCalibration_organizationId_domain_configHash_createdAt_idx" ON "GateCalibration"("organizationId", "domain", "configHash", "createdAt");

-- AddForeignKey
ALTER TABLE "GateCalibration" ADD CONSTRAINT "GateCalibration_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GateCalibration" ADD CONSTRAINT "GateCalibration_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
