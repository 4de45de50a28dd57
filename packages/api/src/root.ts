import { apiKeyRouter } from "./routers/api-key.ts";
import { branchRouter } from "./routers/branch.ts";
import { decisionRouter } from "./routers/decision.ts";
import { harnessRouter } from "./routers/harness.ts";
import { nodeRouter } from "./routers/node.ts";
import { rolloutRouter } from "./routers/rollout.ts";
import { runRouter } from "./routers/run.ts";
import { shareLinkRouter } from "./routers/share-link.ts";
import { skillRouter } from "./routers/skill.ts";
import { viewerRouter } from "./routers/viewer.ts";
import { createTRPCRouter } from "./trpc.ts";

export const appRouter = createTRPCRouter({
  apiKey: apiKeyRouter,
  branch: branchRouter,
  decision: decisionRouter,
  harness: harnessRouter,
  node: nodeRouter,
  rollout: rolloutRouter,
  run: runRouter,
  shareLink: shareLinkRouter,
  skill: skillRouter,
  viewer: viewerRouter,
});

export type AppRouter = typeof appRouter;
