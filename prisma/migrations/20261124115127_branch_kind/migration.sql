-- CreateEnum
CREATE TYPE "BranchKind" AS ENUM ('candidate', 'control');

-- AlterTable
ALTER TABLE "Branch" ADD COLUMN     "kind" "BranchKind" NOT NULL DEFAULT 'candidate';
