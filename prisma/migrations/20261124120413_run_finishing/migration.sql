-- AlterEnum
ALTER TYPE "RunStatus" ADD VALUE 'finishing';
