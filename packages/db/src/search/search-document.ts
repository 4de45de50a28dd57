import { Prisma } from "../generated/prisma/client.ts";

/**
 * Longest document stored whole. Longer texts keep their head and tail (half each) and are marked
 * incomplete: the search reads those rollouts' own text, so a capped document never hides a match.
 */
export const DOCUMENT_CAP = 64 * 1024;

/**
 * The search document of the rollout `r`, in SQL: its taskId, prompt and response lower-cased,
 * one per line. Matching `lower(pattern)` against it finds every rollout whose taskId, prompt or
 * response matches the pattern (and a few more, which the search's check on the rollout drops).
 */
export const searchDocument = Prisma.sql`lower(concat_ws(E'\n', r."taskId", r.prompt, r.response))`;

/** `text` capped to DOCUMENT_CAP characters: its head and its tail. */
export const cappedDocument = (text: Prisma.Sql) =>
  Prisma.sql`CASE WHEN length(${text}) <= ${DOCUMENT_CAP} THEN ${text} ELSE left(${text}, ${DOCUMENT_CAP / 2}) || E'\n' || right(${text}, ${DOCUMENT_CAP / 2}) END`;
