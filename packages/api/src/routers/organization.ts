import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { createOrganization, isInstallationAdmin, listOrganizations, slugOf } from "@evotrainer/db";
import { userProcedure } from "../trpc.ts";
import { inviteByLink } from "./member.ts";
import { printable } from "../input/printable-text.ts";

/** An installation admin (the user row's role), not an admin of some organization: tenants are theirs to create. */
const installationAdminProcedure = userProcedure.use(async ({ ctx, next }) => {
  if (!(await isInstallationAdmin(ctx.db, ctx.userId))) throw new TRPCError({ code: "FORBIDDEN", message: "Only an installation admin manages organizations." });
  return next();
});

/** The installation's organizations: each a tenant with its own members, runs, nodes and webhooks. */
export const organizationRouter = {
  list: installationAdminProcedure.query(({ ctx }) => listOrganizations(ctx.db)),

  /** A new organization and the invitation link of its first admin, shown once. */
  create: installationAdminProcedure
    .input(
      z.object({
        name: printable(z.string().trim().min(1, { error: "give the organization a name" }).max(100)),
        slug: z
          .string()
          .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { error: "lower-case letters, digits and single dashes" })
          .max(48)
          .optional(),
        adminEmail: z.email({ error: "give the email address of the organization's first admin" }).max(320),
        expiresInHours: z.number().positive().max(24 * 30).default(72),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const slug = input.slug ?? slugOf(input.name);
      if (!slug) throw new TRPCError({ code: "BAD_REQUEST", message: "slug: the name has no letters or digits to make a slug from; give one with a slug." });
      const created = await createOrganization(ctx.db, { name: input.name, slug });
      if (created.outcome === "refused") throw new TRPCError({ code: "CONFLICT", message: created.message });
      const invitation = await inviteByLink(ctx.db, { organizationId: created.organization.id, inviterId: ctx.userId, email: input.adminEmail, role: "admin", expiresInHours: input.expiresInHours });
      return { organization: created.organization, invitation };
    }),
} satisfies TRPCRouterRecord;
