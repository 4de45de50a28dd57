-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('viewer', 'approver', 'admin');

-- CreateEnum
CREATE TYPE "ShareScope" AS ENUM ('run_read');

-- CreateEnum
CREATE TYPE "Domain" AS ENUM ('math', 'code', 'swe', 'custom');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('pending', 'running', 'paused', 'completed', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "BranchStatus" AS ENUM ('proposed', 'queued', 'training', 'evaluating', 'awaiting_decision', 'promoted', 'rejected', 'vetoed', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "Provenance" AS ENUM ('rule', 'skill', 'llm', 'human');

-- CreateEnum
CREATE TYPE "InterventionStatus" AS ENUM ('proposed', 'rejected', 'backtested', 'selected', 'discarded');

-- CreateEnum
CREATE TYPE "ExecutorKind" AS ENUM ('local', 'ssh', 'kubernetes');

-- CreateEnum
CREATE TYPE "AdapterKind" AS ENUM ('gym', 'verl', 'trl');

-- CreateEnum
CREATE TYPE "JobKind" AS ENUM ('train', 'eval');

-- CreateEnum
CREATE TYPE "JobState" AS ENUM ('pending', 'submitted', 'running', 'succeeded', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "FailureClass" AS ENUM ('config_error', 'data_error', 'preempted', 'crash', 'oom', 'gpu_oom', 'node_lost', 'deadline_exceeded');

-- CreateEnum
CREATE TYPE "Split" AS ENUM ('train', 'promotion', 'sealed');

-- CreateEnum
CREATE TYPE "LabelReview" AS ENUM ('confirmed', 'rejected');

-- CreateEnum
CREATE TYPE "DecisionKind" AS ENUM ('approve', 'revise', 'veto');

-- CreateEnum
CREATE TYPE "ActorType" AS ENUM ('human', 'policy');

-- CreateEnum
CREATE TYPE "SkillOutcome" AS ENUM ('pending', 'success', 'failure');

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "role" TEXT,
    "banned" BOOLEAN DEFAULT false,
    "banReason" TEXT,
    "banExpires" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "ipAddress" TEXT,
    "userAgent" TEXT,
    "activeOrganizationId" TEXT,
    "impersonatedBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Account" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "accessToken" TEXT,
    "refreshToken" TEXT,
    "idToken" TEXT,
    "accessTokenExpiresAt" TIMESTAMP(3),
    "refreshTokenExpiresAt" TIMESTAMP(3),
    "scope" TEXT,
    "password" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Verification" (
    "id" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Verification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Organization" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "logo" TEXT,
    "metadata" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Organization_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Membership" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'viewer',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Membership_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "start" TEXT NOT NULL,
    "prefix" TEXT,
    "keyHash" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "permissions" JSONB,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "expiresAt" TIMESTAMP(3),
    "lastUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ShareLink" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "scope" "ShareScope" NOT NULL DEFAULT 'run_read',
    "createdById" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "lastUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ShareLink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "createdById" TEXT,
    "name" TEXT NOT NULL,
    "domain" "Domain" NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'pending',
    "basePolicy" TEXT NOT NULL,
    "settings" JSONB NOT NULL,
    "evaluationProtocol" JSONB NOT NULL,
    "autonomyPolicy" JSONB NOT NULL,
    "budget" JSONB NOT NULL,
    "gpuSecondsUsed" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "llmDollarsUsed" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "round" INTEGER NOT NULL DEFAULT 0,
    "bestBranchId" TEXT,
    "harnessVersionId" TEXT,
    "finalReport" JSONB,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Branch" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "parentId" TEXT,
    "version" INTEGER NOT NULL,
    "round" INTEGER NOT NULL,
    "status" "BranchStatus" NOT NULL DEFAULT 'proposed',
    "recipeId" TEXT NOT NULL,
    "interventionId" TEXT,
    "checkpoint" JSONB,
    "gpuSecondsUsed" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "promotionScore" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Branch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Recipe" (
    "id" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "canonical" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Recipe_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Intervention" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "parentBranchId" TEXT NOT NULL,
    "round" INTEGER NOT NULL,
    "hypothesis" TEXT NOT NULL,
    "targetMetric" TEXT NOT NULL,
    "factor" TEXT NOT NULL,
    "patch" JSONB NOT NULL,
    "expectedEffect" JSONB NOT NULL,
    "falsification" TEXT NOT NULL,
    "provenance" "Provenance" NOT NULL,
    "skillId" TEXT,
    "status" "InterventionStatus" NOT NULL DEFAULT 'proposed',
    "rejectionReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Intervention_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HarnessVersion" (
    "id" TEXT NOT NULL,
    "runId" TEXT,
    "parentId" TEXT,
    "version" INTEGER NOT NULL,
    "domain" "Domain" NOT NULL,
    "metrics" JSONB NOT NULL,
    "healthRules" JSONB NOT NULL,
    "gatePolicy" JSONB NOT NULL,
    "evidence" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HarnessVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Detector" (
    "id" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "cel" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "validity" BOOLEAN NOT NULL DEFAULT false,
    "testCases" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Detector_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HarnessDetector" (
    "harnessVersionId" TEXT NOT NULL,
    "detectorId" TEXT NOT NULL,

    CONSTRAINT "HarnessDetector_pkey" PRIMARY KEY ("harnessVersionId","detectorId")
);

-- CreateTable
CREATE TABLE "GpuNode" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT,
    "name" TEXT NOT NULL,
    "executor" "ExecutorKind" NOT NULL,
    "host" TEXT,
    "port" INTEGER NOT NULL DEFAULT 22,
    "user" TEXT,
    "keyRef" TEXT,
    "encryptedKey" BYTEA,
    "gpuCount" INTEGER NOT NULL DEFAULT 1,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "lastSeenAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GpuNode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
    "branchId" TEXT NOT NULL,
    "kind" "JobKind" NOT NULL DEFAULT 'train',
    "executor" "ExecutorKind" NOT NULL,
    "adapter" "AdapterKind" NOT NULL,
    "nodeId" TEXT,
    "gpuCount" INTEGER NOT NULL DEFAULT 0,
    "state" "JobState" NOT NULL DEFAULT 'pending',
    "failureClass" "FailureClass",
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL DEFAULT 3,
    "externalId" TEXT,
    "exitCode" INTEGER,
    "message" TEXT,
    "logTail" TEXT,
    "gpuSeconds" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "outputUri" TEXT,
    "heartbeatAt" TIMESTAMP(3),
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IngestCursor" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "byteOffset" BIGINT NOT NULL DEFAULT 0,
    "lineNumber" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IngestCursor_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Rollout" (
    "id" BIGSERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "branchId" TEXT NOT NULL,
    "jobId" TEXT,
    "split" "Split" NOT NULL,
    "step" INTEGER NOT NULL,
    "taskId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "sample" INTEGER NOT NULL,
    "reward" DOUBLE PRECISION NOT NULL,
    "rewardComponents" JSONB NOT NULL DEFAULT '{}',
    "responseTokens" INTEGER NOT NULL,
    "turns" INTEGER NOT NULL DEFAULT 1,
    "finishReason" TEXT,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "prompt" TEXT,
    "response" TEXT,
    "trajectory" JSONB,
    "groundTruth" JSONB,
    "extra" JSONB,
    "uid" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Rollout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RolloutLabel" (
    "id" BIGSERIAL NOT NULL,
    "rolloutId" BIGINT NOT NULL,
    "branchId" TEXT NOT NULL,
    "split" "Split" NOT NULL,
    "step" INTEGER NOT NULL,
    "label" TEXT NOT NULL,
    "detectorId" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "review" "LabelReview",
    "reviewedById" TEXT,
    "reviewedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RolloutLabel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LabelStat" (
    "id" TEXT NOT NULL,
    "branchId" TEXT NOT NULL,
    "split" "Split" NOT NULL,
    "step" INTEGER NOT NULL,
    "label" TEXT NOT NULL,
    "detectorId" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LabelStat_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MetricPoint" (
    "id" BIGSERIAL NOT NULL,
    "branchId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "MetricPoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuarantinedLine" (
    "id" TEXT NOT NULL,
    "runId" TEXT,
    "branchId" TEXT,
    "jobId" TEXT,
    "source" TEXT NOT NULL,
    "lineNumber" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "raw" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuarantinedLine_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Backtest" (
    "id" TEXT NOT NULL,
    "interventionId" TEXT NOT NULL,
    "report" JSONB NOT NULL,
    "predictedEffect" DOUBLE PRECISION NOT NULL,
    "realisedEffect" DOUBLE PRECISION,
    "rank" INTEGER,
    "kept" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Backtest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Verdict" (
    "id" TEXT NOT NULL,
    "branchId" TEXT NOT NULL,
    "passed" BOOLEAN NOT NULL,
    "checks" JSONB NOT NULL,
    "promotionScore" DOUBLE PRECISION NOT NULL,
    "parentScore" DOUBLE PRECISION,
    "bestScore" DOUBLE PRECISION,
    "deltaVsParent" DOUBLE PRECISION,
    "ciLow" DOUBLE PRECISION,
    "ciHigh" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Verdict_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Decision" (
    "id" TEXT NOT NULL,
    "branchId" TEXT NOT NULL,
    "kind" "DecisionKind" NOT NULL,
    "actorType" "ActorType" NOT NULL,
    "userId" TEXT,
    "reason" TEXT NOT NULL,
    "instructions" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Decision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Skill" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT,
    "name" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "template" JSONB NOT NULL,
    "expectedOutcome" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "domains" "Domain"[],
    "successCount" INTEGER NOT NULL DEFAULT 0,
    "failureCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Skill_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SkillApplication" (
    "id" TEXT NOT NULL,
    "skillId" TEXT NOT NULL,
    "interventionId" TEXT NOT NULL,
    "outcome" "SkillOutcome" NOT NULL DEFAULT 'pending',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SkillApplication_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Event" (
    "id" BIGSERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "branchId" TEXT,
    "type" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "Session_token_key" ON "Session"("token");

-- CreateIndex
CREATE INDEX "Session_userId_idx" ON "Session"("userId");

-- CreateIndex
CREATE INDEX "Account_userId_idx" ON "Account"("userId");

-- CreateIndex
CREATE INDEX "Verification_identifier_idx" ON "Verification"("identifier");

-- CreateIndex
CREATE UNIQUE INDEX "Organization_slug_key" ON "Organization"("slug");

-- CreateIndex
CREATE INDEX "Membership_userId_idx" ON "Membership"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Membership_organizationId_userId_key" ON "Membership"("organizationId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");

-- CreateIndex
CREATE INDEX "ApiKey_userId_idx" ON "ApiKey"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "ShareLink_tokenHash_key" ON "ShareLink"("tokenHash");

-- CreateIndex
CREATE INDEX "ShareLink_runId_idx" ON "ShareLink"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "Run_bestBranchId_key" ON "Run"("bestBranchId");

-- CreateIndex
CREATE INDEX "Run_organizationId_createdAt_idx" ON "Run"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

-- CreateIndex
CREATE UNIQUE INDEX "Branch_interventionId_key" ON "Branch"("interventionId");

-- CreateIndex
CREATE INDEX "Branch_runId_status_idx" ON "Branch"("runId", "status");

-- CreateIndex
CREATE INDEX "Branch_parentId_idx" ON "Branch"("parentId");

-- CreateIndex
CREATE UNIQUE INDEX "Branch_runId_version_key" ON "Branch"("runId", "version");

-- CreateIndex
CREATE UNIQUE INDEX "Recipe_hash_key" ON "Recipe"("hash");

-- CreateIndex
CREATE INDEX "Intervention_runId_round_idx" ON "Intervention"("runId", "round");

-- CreateIndex
CREATE INDEX "Intervention_parentBranchId_idx" ON "Intervention"("parentBranchId");

-- CreateIndex
CREATE UNIQUE INDEX "HarnessVersion_runId_version_key" ON "HarnessVersion"("runId", "version");

-- CreateIndex
CREATE UNIQUE INDEX "Detector_label_version_key" ON "Detector"("label", "version");

-- CreateIndex
CREATE UNIQUE INDEX "GpuNode_name_key" ON "GpuNode"("name");

-- CreateIndex
CREATE INDEX "Job_branchId_idx" ON "Job"("branchId");

-- CreateIndex
CREATE INDEX "Job_state_idx" ON "Job"("state");

-- CreateIndex
CREATE INDEX "Job_nodeId_state_idx" ON "Job"("nodeId", "state");

-- CreateIndex
CREATE UNIQUE INDEX "IngestCursor_jobId_file_key" ON "IngestCursor"("jobId", "file");

-- CreateIndex
CREATE INDEX "Rollout_branchId_split_step_idx" ON "Rollout"("branchId", "split", "step");

-- CreateIndex
CREATE INDEX "Rollout_branchId_taskId_idx" ON "Rollout"("branchId", "taskId");

-- CreateIndex
CREATE UNIQUE INDEX "Rollout_branchId_uid_key" ON "Rollout"("branchId", "uid");

-- CreateIndex
CREATE INDEX "RolloutLabel_branchId_step_label_idx" ON "RolloutLabel"("branchId", "step", "label");

-- CreateIndex
CREATE INDEX "RolloutLabel_branchId_label_idx" ON "RolloutLabel"("branchId", "label");

-- CreateIndex
CREATE UNIQUE INDEX "RolloutLabel_rolloutId_detectorId_key" ON "RolloutLabel"("rolloutId", "detectorId");

-- CreateIndex
CREATE INDEX "LabelStat_branchId_label_idx" ON "LabelStat"("branchId", "label");

-- CreateIndex
CREATE UNIQUE INDEX "LabelStat_branchId_split_step_detectorId_key" ON "LabelStat"("branchId", "split", "step", "detectorId");

-- CreateIndex
CREATE INDEX "MetricPoint_branchId_step_idx" ON "MetricPoint"("branchId", "step");

-- CreateIndex
CREATE UNIQUE INDEX "MetricPoint_branchId_name_step_key" ON "MetricPoint"("branchId", "name", "step");

-- CreateIndex
CREATE INDEX "QuarantinedLine_runId_idx" ON "QuarantinedLine"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "QuarantinedLine_source_lineNumber_key" ON "QuarantinedLine"("source", "lineNumber");

-- CreateIndex
CREATE UNIQUE INDEX "Backtest_interventionId_key" ON "Backtest"("interventionId");

-- CreateIndex
CREATE UNIQUE INDEX "Verdict_branchId_key" ON "Verdict"("branchId");

-- CreateIndex
CREATE INDEX "Decision_branchId_createdAt_idx" ON "Decision"("branchId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Skill_organizationId_name_key" ON "Skill"("organizationId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "SkillApplication_skillId_interventionId_key" ON "SkillApplication"("skillId", "interventionId");

-- CreateIndex
CREATE INDEX "Event_runId_createdAt_idx" ON "Event"("runId", "createdAt");

-- CreateIndex
CREATE INDEX "Event_branchId_idx" ON "Event"("branchId");

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Account" ADD CONSTRAINT "Account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ShareLink" ADD CONSTRAINT "ShareLink_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ShareLink" ADD CONSTRAINT "ShareLink_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_bestBranchId_fkey" FOREIGN KEY ("bestBranchId") REFERENCES "Branch"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_harnessVersionId_fkey" FOREIGN KEY ("harnessVersionId") REFERENCES "HarnessVersion"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Branch" ADD CONSTRAINT "Branch_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Branch" ADD CONSTRAINT "Branch_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Branch"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Branch" ADD CONSTRAINT "Branch_recipeId_fkey" FOREIGN KEY ("recipeId") REFERENCES "Recipe"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Branch" ADD CONSTRAINT "Branch_interventionId_fkey" FOREIGN KEY ("interventionId") REFERENCES "Intervention"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Intervention" ADD CONSTRAINT "Intervention_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Intervention" ADD CONSTRAINT "Intervention_parentBranchId_fkey" FOREIGN KEY ("parentBranchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Intervention" ADD CONSTRAINT "Intervention_skillId_fkey" FOREIGN KEY ("skillId") REFERENCES "Skill"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HarnessVersion" ADD CONSTRAINT "HarnessVersion_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HarnessVersion" ADD CONSTRAINT "HarnessVersion_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "HarnessVersion"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HarnessDetector" ADD CONSTRAINT "HarnessDetector_harnessVersionId_fkey" FOREIGN KEY ("harnessVersionId") REFERENCES "HarnessVersion"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HarnessDetector" ADD CONSTRAINT "HarnessDetector_detectorId_fkey" FOREIGN KEY ("detectorId") REFERENCES "Detector"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GpuNode" ADD CONSTRAINT "GpuNode_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Job" ADD CONSTRAINT "Job_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Job" ADD CONSTRAINT "Job_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "GpuNode"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IngestCursor" ADD CONSTRAINT "IngestCursor_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolloutLabel" ADD CONSTRAINT "RolloutLabel_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolloutLabel" ADD CONSTRAINT "RolloutLabel_detectorId_fkey" FOREIGN KEY ("detectorId") REFERENCES "Detector"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolloutLabel" ADD CONSTRAINT "RolloutLabel_reviewedById_fkey" FOREIGN KEY ("reviewedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LabelStat" ADD CONSTRAINT "LabelStat_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LabelStat" ADD CONSTRAINT "LabelStat_detectorId_fkey" FOREIGN KEY ("detectorId") REFERENCES "Detector"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MetricPoint" ADD CONSTRAINT "MetricPoint_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuarantinedLine" ADD CONSTRAINT "QuarantinedLine_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Backtest" ADD CONSTRAINT "Backtest_interventionId_fkey" FOREIGN KEY ("interventionId") REFERENCES "Intervention"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Verdict" ADD CONSTRAINT "Verdict_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Decision" ADD CONSTRAINT "Decision_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Decision" ADD CONSTRAINT "Decision_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Skill" ADD CONSTRAINT "Skill_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SkillApplication" ADD CONSTRAINT "SkillApplication_skillId_fkey" FOREIGN KEY ("skillId") REFERENCES "Skill"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SkillApplication" ADD CONSTRAINT "SkillApplication_interventionId_fkey" FOREIGN KEY ("interventionId") REFERENCES "Intervention"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_branchId_fkey" FOREIGN KEY ("branchId") REFERENCES "Branch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Event is an append-only ledger: rows may be inserted (and removed with their run), never changed.
CREATE FUNCTION "event_is_append_only"() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'Event rows are append-only: UPDATE of event % rejected', OLD."id";
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "Event_append_only" BEFORE UPDATE ON "Event"
  FOR EACH ROW EXECUTE FUNCTION "event_is_append_only"();
