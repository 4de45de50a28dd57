/**
 * The most bytes one request to /api/trpc may carry, refused before it is parsed. Room for an import's
 * metrics (every step of a run in one call) and its line batches (about 2 MB each); far below what
 * would let one request hold the server's memory.
 */
export const TRPC_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
