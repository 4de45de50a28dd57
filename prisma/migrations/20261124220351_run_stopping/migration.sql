-- AlterEnum
ALTER TYPE "RunStatus" ADD VALUE 'stopping';
