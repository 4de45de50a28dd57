import type { Prisma } from "../generated/prisma/client.ts";

/** Types a value that is JSON by construction (zod-validated domain data) for a Json column. */
export const json = (value: unknown): Prisma.InputJsonValue => value as Prisma.InputJsonValue;
