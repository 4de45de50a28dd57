import { z } from "zod";

// Postgres BIGINT and INT: a value past them reaches the database as an error, not as "no row".
const INT64_MAX = 9_223_372_036_854_775_807n;
export const INT32_MAX = 2_147_483_647;

/** A BIGINT primary key sent as a decimal string (JSON numbers lose precision past 2^53). */
export const int64Id = z
  .string()
  .regex(/^\d{1,19}$/, { error: "an integer id" })
  .refine((value) => BigInt(value) <= INT64_MAX, { error: "an id within the 64-bit range" });

/** A training step, stored as INT. */
export const stepNumber = z.number().int().nonnegative().max(INT32_MAX);
