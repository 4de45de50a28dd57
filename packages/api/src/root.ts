import { apiKeyRouter } from "./routers/api-key.ts";
import { branchRouter } from "./routers/branch.ts";
import { compareRouter } from "./routers/compare.ts";
import { decisionRouter } from "./routers/decision.ts";
import { harnessRouter } from "./routers/harness.ts";
import { importRouter } from "./routers/import.ts";
import { labelReviewRouter } from "./routers/label-review.ts";
import { memberRouter } from "./routers/member.ts";
import { nodeRouter } from "./routers/node.ts";
import { notificationRouter } from "./routers/notification.ts";
import { organizationRouter } from "./routers/organization.ts";
import { rolloutRouter } from "./routers/rollout.ts";
import { rolloutViewsRouter } from "./routers/rollout-views.ts";
import { runRouter } from "./routers/run.ts";
import { runControlRouter } from "./routers/run-control.ts";
import { shareLinkRouter } from "./routers/share-link.ts";
import { skillRouter } from "./routers/skill.ts";
import { unexplainedRouter } from "./routers/unexplained.ts";
import { viewerRouter } from "./routers/viewer.ts";
import { createTRPCRouter } from "./trpc.ts";

export const appRouter = createTRPCRouter({
  apiKey: apiKeyRouter,
  branch: branchRouter,
  compare: compareRouter,
  decision: decisionRouter,
  harness: harnessRouter,
  import: importRouter,
  labelReview: labelReviewRouter,
  member: memberRouter,
  node: nodeRouter,
  notification: notificationRouter,
  organization: organizationRouter,
  rollout: rolloutRouter,
  rolloutViews: rolloutViewsRouter,
  run: runRouter,
  runControl: runControlRouter,
  shareLink: shareLinkRouter,
  skill: skillRouter,
  unexplained: unexplainedRouter,
  viewer: viewerRouter,
});

export type AppRouter = typeof appRouter;
