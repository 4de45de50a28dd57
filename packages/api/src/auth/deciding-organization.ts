import { TRPCError } from "@trpc/server";
import type { Database } from "@evotrainer/db";
import { requireOrganizationRole } from "../trpc.ts";

/**
 * The organization a new run lands in: the one named, or the caller's only organization where they
 * approve. Approver or admin there, since a run spends the organization's GPUs and awaits its decisions.
 */
export async function decidingOrganization(ctx: { db: Database; userId: string }, organizationId: string | undefined): Promise<string> {
  if (!organizationId) {
    const deciding = await ctx.db.membership.findMany({ where: { userId: ctx.userId, role: { in: ["approver", "admin"] } }, select: { organizationId: true } });
    if (deciding.length === 0) throw new TRPCError({ code: "FORBIDDEN", message: "starting a run needs the approver role in an organization: ask one of its admins" });
    if (deciding.length > 1) throw new TRPCError({ code: "BAD_REQUEST", message: "you approve in several organizations: name one with --org <organizationId>" });
    organizationId = deciding[0]!.organizationId;
  }
  await requireOrganizationRole(ctx, organizationId, "approver");
  return organizationId;
}
