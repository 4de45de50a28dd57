import "server-only";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { admin, organization } from "better-auth/plugins";
import { hashPassword, verifyPassword } from "@evotrainer/api";
import { INSTALLATION_ADMIN_ROLE } from "@evotrainer/db";
import { env } from "~/env";
import { siteOrigin } from "~/lib/same-origin";
import { db } from "./db";
import { passwordGuard } from "./password-guard";
import { organizationAccess, organizationRoles } from "./organization-roles";
import { localAuthSecret } from "./auth-secret";

/** The organization plugin's endpoints that only read. */
const ORGANIZATION_READS = ["/organization/list", "/organization/get-full-organization", "/organization/get-active-member", "/organization/list-members"];

/** Paths after which the account's owner (or an admin) has set a password: its wrong ones are forgotten there. */
const PASSWORD_SET = ["/change-password", "/admin/set-user-password"];

async function emailOfUser(userId: unknown): Promise<string | null> {
  if (typeof userId !== "string") return null;
  return (await db.user.findUnique({ where: { id: userId }, select: { email: true } }))?.email ?? null;
}

/**
 * `secure`: whether this instance's session cookie carries `Secure` (and the `__Secure-` prefix).
 * A browser drops a Secure cookie set over plain http on any host but loopback, which left
 * sign-in over http answering 200 with no session: the cookie must follow the scheme served.
 */
function createAuth(secure: boolean) {
  return betterAuth({
    database: prismaAdapter(db, { provider: "postgresql" }),
    secret: env.BETTER_AUTH_SECRET ?? localAuthSecret(),
    ...(env.BETTER_AUTH_URL ? { baseURL: env.BETTER_AUTH_URL } : {}),
    // Without a configured URL the dashboard trusts its own origin, as the browser addressed it
    // (scheme and host as server.ts resolved them): the CSRF check then means "same origin".
    trustedOrigins: (request) => [request ? siteOrigin(request.headers, env.BETTER_AUTH_URL) : env.BETTER_AUTH_URL].filter((o): o is string => Boolean(o)),
    emailAndPassword: {
      enabled: true,
      // Accounts are made by an admin (or the quickstart), never by whoever finds the page.
      disableSignUp: true,
      // The same hash as ensureLocalAdmin writes, so users created outside Better Auth can sign in.
      password: { hash: hashPassword, verify: verifyPassword },
    },
    // Brute-force guard per client address: ten password attempts a minute unless the installation says
    // otherwise. The address is X-Forwarded-For as server.ts rewrote it: the socket's peer, or the
    // client a trusted proxy names.
    rateLimit: { enabled: true, customRules: { "/sign-in/email": { window: 60, max: signInsPerMinute() } } },
    advanced: { useSecureCookies: secure, ipAddress: { ipAddressHeaders: ["x-forwarded-for"] } },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        // Members change only through the members page and `evotrainer users`, where the invitation
        // links and the last-admin guard live; the plugin's own endpoints would go around them.
        if (ctx.path.startsWith("/organization/") && !ORGANIZATION_READS.includes(ctx.path)) {
          throw new APIError("FORBIDDEN", { message: "members are managed in Settings → Members or with `evotrainer users`" });
        }
        if (ctx.path !== "/sign-in/email" || typeof ctx.body?.email !== "string") return;
        const seconds = await passwordGuard.waitSeconds(ctx.body.email, clientOf(ctx.headers), "sign-in");
        if (seconds > 0) {
          throw new APIError("TOO_MANY_REQUESTS", {
            message: `Too many wrong passwords for this account from your address: try again in ${Math.ceil(seconds / 60)} min. The account is not locked: a device that has signed in to it before, or one that has not failed, can sign in now.`,
          });
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        const failed = ctx.context.returned instanceof APIError;
        if (ctx.path === "/sign-in/email" && typeof ctx.body?.email === "string") {
          const client = clientOf(ctx.headers);
          if (!failed) await passwordGuard.recordSuccess(ctx.body.email, client);
          else if (ctx.context.returned instanceof APIError && ctx.context.returned.statusCode === 401) await passwordGuard.recordFailure(ctx.body.email, client, "sign-in");
        } else if (PASSWORD_SET.includes(ctx.path) && !failed) {
          const email = ctx.path === "/change-password" ? ctx.context.session?.user.email : await emailOfUser(ctx.body?.userId);
          if (email) await passwordGuard.passwordSet(email);
        }
      }),
    },
    plugins: [
      organization({
        ac: organizationAccess,
        roles: organizationRoles,
        creatorRole: "admin",
        // An organization is a tenant: only an installation admin creates one.
        allowUserToCreateOrganization: (user) => (user as { role?: string | null }).role === INSTALLATION_ADMIN_ROLE,
        // Better Auth's "member" table is the schema's Membership.
        schema: { member: { modelName: "membership" } },
      }),
      // /api/auth/admin/* (list users, set passwords, end sessions, change emails) answers only the
      // installation admin: the user row's role, which no organization role grants.
      admin({ adminRoles: [INSTALLATION_ADMIN_ROLE] }),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** Whether this request reached the site over https: BETTER_AUTH_URL decides when set, else the request. */
function servedOverHttps(headers: Headers): boolean {
  if (env.BETTER_AUTH_URL) return new URL(env.BETTER_AUTH_URL).protocol === "https:";
  return headers.get("x-forwarded-proto") === "https";
}

// Created on first use rather than at import, so `next build` needs no secret and no database.
const globalForAuth = globalThis as unknown as { evoAuth?: Map<boolean, Auth> };
export function getAuth(headers: Headers): Auth {
  const instances = (globalForAuth.evoAuth ??= new Map());
  const secure = servedOverHttps(headers);
  let auth = instances.get(secure);
  if (!auth) instances.set(secure, (auth = createAuth(secure)));
  return auth;
}

export async function sessionUserId(headers: Headers): Promise<string | null> {
  const session = await getAuth(headers).api.getSession({ headers });
  return session?.user.id ?? null;
}

/** The address a sign-in came from: server.ts puts the socket's peer (or a trusted proxy's client) in X-Forwarded-For. */
const clientOf = (headers: Headers | undefined) => headers?.get("x-forwarded-for") ?? "";

/** `EVO_SIGNINS_PER_MINUTE`: sign-in attempts one client address may make a minute (10 by default). */
function signInsPerMinute(): number {
  const value = Number(process.env.EVO_SIGNINS_PER_MINUTE ?? 10);
  if (!Number.isInteger(value) || value < 1) throw new Error(`EVO_SIGNINS_PER_MINUTE must be a whole number of 1 or more, not "${process.env.EVO_SIGNINS_PER_MINUTE}"`);
  return value;
}
