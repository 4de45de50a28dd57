import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { createTestDelivery, createWebhook, deleteWebhook, listDeliveries, listWebhooks, masterKeyOrLocal, webhookAllowList, webhookInputSchema, webhookTarget } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { userProcedure } from "../trpc.ts";

/**
 * The organization whose notifications an admin manages: the one named, or their only admin
 * membership. Webhooks are secrets of the organization, so viewers and approvers see none of it.
 */
const adminProcedure = userProcedure.input(z.object({ organizationId: z.string().min(1).optional() })).use(async ({ ctx, input, next }) => {
  const memberships = await ctx.db.membership.findMany({ where: { userId: ctx.userId, role: "admin", ...(input.organizationId ? { organizationId: input.organizationId } : {}) }, select: { organizationId: true } });
  if (memberships.length === 0) throw new TRPCError({ code: "FORBIDDEN", message: "managing notifications needs the admin role in the organization" });
  if (memberships.length > 1) throw new TRPCError({ code: "BAD_REQUEST", message: "you administer several organizations: name one with organizationId" });
  return next({ ctx: { ...ctx, organizationId: memberships[0]!.organizationId } });
});

export const notificationRouter = {
  webhooks: adminProcedure.query(({ ctx }) => listWebhooks(ctx.db, ctx.organizationId)),

  /** Returns a generic webhook's signing secret: the only time it leaves the server. */
  createWebhook: adminProcedure.input(z.object(webhookInputSchema.shape)).mutation(async ({ ctx, input }) => {
    // Refused here and again at every delivery (a name may resolve elsewhere by then).
    const target = await webhookTarget(input.url, { allowed: webhookAllowList() });
    if (target.outcome === "refused") throw new TRPCError({ code: "BAD_REQUEST", message: target.message });
    try {
      return await createWebhook(ctx.db, ctx.organizationId, { name: input.name, kind: input.kind, url: input.url }, masterKeyOrLocal());
    } catch (error) {
      if (error instanceof Error && error.message.includes("already exists")) throw new TRPCError({ code: "CONFLICT", message: error.message });
      throw error;
    }
  }),

  deleteWebhook: adminProcedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    if (!(await deleteWebhook(ctx.db, ctx.organizationId, input.id))) throw new TRPCError({ code: "NOT_FOUND", message: "webhook not found in this organization" });
    return { id: input.id };
  }),

  sendTest: adminProcedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const deliveryId = await createTestDelivery(ctx.db, ctx.organizationId, input.id, {
      kind: "test",
      runId: "",
      branchId: null,
      summary: "Test notification from EvoTrainer: this webhook is set up",
      path: "/settings/notifications",
    });
    if (!deliveryId) throw new TRPCError({ code: "NOT_FOUND", message: "webhook not found in this organization" });
    // After commit: if Redis is away, the worker's sweep finds the pending delivery.
    const enqueued = await ctx
      .producer()
      .enqueue(QueueName.Notify, { deliveryId, attempt: 1 })
      .then(() => true)
      .catch(() => false);
    return { deliveryId, enqueued };
  }),

  deliveries: adminProcedure.query(({ ctx }) => listDeliveries(ctx.db, ctx.organizationId)),
} satisfies TRPCRouterRecord;
