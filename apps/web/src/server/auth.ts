import "server-only";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { admin, organization } from "better-auth/plugins";
import { hashPassword, verifyPassword } from "@evotrainer/api";
import { env } from "~/env";
import { db } from "./db";
import { organizationAccess, organizationRoles } from "./organization-roles";
import { localAuthSecret } from "./auth-secret";

function createAuth() {
  return betterAuth({
    database: prismaAdapter(db, { provider: "postgresql" }),
    secret: env.BETTER_AUTH_SECRET ?? localAuthSecret(),
    ...(env.BETTER_AUTH_URL ? { baseURL: env.BETTER_AUTH_URL } : {}),
    // Without a configured URL the dashboard trusts its own origin, as the browser addressed it:
    // the CSRF check then means "same origin", whichever host name or port the user typed.
    trustedOrigins: (request) => {
      const host = request?.headers.get("host");
      const proto = request?.headers.get("x-forwarded-proto") ?? "http";
      return [env.BETTER_AUTH_URL, host ? `${proto}://${host}` : undefined].filter((o): o is string => Boolean(o));
    },
    emailAndPassword: {
      enabled: true,
      // Accounts are made by an admin (or the quickstart), never by whoever finds the page.
      disableSignUp: true,
      // The same hash as ensureLocalAdmin writes, so users created outside Better Auth can sign in.
      password: { hash: hashPassword, verify: verifyPassword },
    },
    // Brute-force guard per client address: ten password attempts a minute.
    rateLimit: { enabled: true, customRules: { "/sign-in/email": { window: 60, max: 10 } } },
    plugins: [
      organization({
        ac: organizationAccess,
        roles: organizationRoles,
        creatorRole: "admin",
        // Better Auth's "member" table is the schema's Membership.
        schema: { member: { modelName: "membership" } },
      }),
      admin(),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

// Created on first use rather than at import, so `next build` needs no secret and no database.
const globalForAuth = globalThis as unknown as { evoAuth?: Auth };
export function getAuth(): Auth {
  return (globalForAuth.evoAuth ??= createAuth());
}

export async function sessionUserId(headers: Headers): Promise<string | null> {
  const session = await getAuth().api.getSession({ headers });
  return session?.user.id ?? null;
}
