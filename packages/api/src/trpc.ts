import { initTRPC } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import type { Database } from "@evotrainer/db";

export interface Context {
  db: Database;
}

/** Builds the per-request context. The web app calls it from the route handler and from RSC. */
export function createContext(deps: { db: Database }): Context {
  return { db: deps.db };
}

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter: ({ shape, error }) => ({
    ...shape,
    data: { ...shape.data, zodError: error.cause instanceof ZodError ? z.flattenError(error.cause) : null },
  }),
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;
