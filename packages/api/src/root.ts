import { runRouter } from "./routers/run.ts";
import { createTRPCRouter } from "./trpc.ts";

export const appRouter = createTRPCRouter({
  run: runRouter,
});

export type AppRouter = typeof appRouter;
