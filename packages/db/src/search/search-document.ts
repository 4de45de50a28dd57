import { Prisma } from "../generated/prisma/client.ts";

/**
 * Longest prompt or response stored whole (64 KB a rollout in all). A longer one keeps its head and
 * tail (half each) and marks its rollout incomplete: the search matches those on their own text, so
 * a capped text never hides a match.
 */
export const TEXT_CAP = 32 * 1024;

/** `text` (SQL) capped to TEXT_CAP characters: its head and its tail. */
export const cappedText = (text: Prisma.Sql) =>
  Prisma.sql`CASE WHEN length(${text}) <= ${TEXT_CAP} THEN ${text} ELSE left(${text}, ${TEXT_CAP / 2}) || E'\n' || right(${text}, ${TEXT_CAP / 2}) END`;

/** Whether `text` (SQL) is stored whole. */
export const uncapped = (text: Prisma.Sql) => Prisma.sql`coalesce(length(${text}), 0) <= ${TEXT_CAP}`;
