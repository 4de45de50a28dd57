import { createDatabase, type Database } from "@evotrainer/db";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { cliCaller } from "../cli-caller.ts";
import { loadCliEnv } from "../env.ts";
import { refuseWhileLoggedIn } from "../local-only.ts";

const usage = `usage: evotrainer users invite <email> [--role viewer|approver|admin] [--expires-hours N]
       evotrainer users list [--json]
       evotrainer users role <email> viewer|approver|admin
       evotrainer users remove <email>
       evotrainer users reset-password <email> [--expires-hours N]
  (each takes --org <slug>; the local organization by default)`;

const roles = ["viewer", "approver", "admin"] as const;
type Role = (typeof roles)[number];

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

function roleArg(value: string | undefined, where: string): Role {
  if (!roles.includes(value as Role)) throw new Error(`${where}: the role must be viewer, approver or admin, not "${value ?? ""}"`);
  return value as Role;
}

function hoursArg(args: string[]): number | undefined {
  const value = option(args, "--expires-hours");
  if (value === undefined) return undefined;
  const hours = Number(value);
  if (!(hours > 0)) throw new Error(`--expires-hours must be a positive number of hours, not "${value}"`);
  return hours;
}

/**
 * `evotrainer users …`: an organization's members, through the same API procedures as the dashboard's
 * members page, acting as EVO_API_KEY's owner or the local admin. Links are printed once, as the page shows them.
 */
export async function usersCommand(args: string[]): Promise<number> {
  const [sub, target] = args;
  if (!sub || !["invite", "list", "role", "remove", "reset-password"].includes(sub)) throw new Error(usage);
  if (sub !== "list" && !target) throw new Error(usage);
  refuseWhileLoggedIn("users", "an organization admin manages members on the dashboard's Members page");
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const connection = createProducerConnection(env.REDIS_URL);
  const producer = new Producer(connection, env.EVO_QUEUE_PREFIX);
  const site = (env.BETTER_AUTH_URL ?? `http://localhost:${env.EVO_WEB_PORT}`).replace(/\/$/, "");
  try {
    const api = await cliCaller(db, () => producer, env.EVO_API_KEY);
    const organizationId = await organizationIdOf(db, option(args, "--org") ?? "local");
    const userIdOf = async (email: string) => {
      const { members } = await api.member.list({ organizationId });
      const member = members.find((m) => m.email === email.toLowerCase());
      if (!member) throw new Error(`${email} is not a member of this organization (see \`evotrainer users list\`)`);
      return member.userId;
    };
    switch (sub) {
      case "invite": {
        const invited = await api.member.invite({ organizationId, email: target!, role: roleArg(option(args, "--role") ?? "viewer", "--role"), expiresInHours: hoursArg(args) });
        console.log(`invitation for ${invited.email} as ${invited.role}, valid until ${invited.expiresAt.toISOString()} and for one sign-up:\n${site}${invited.path}\n(shown once: only its hash is stored)`);
        break;
      }
      case "list": {
        const { members, invitations } = await api.member.list({ organizationId });
        if (args.includes("--json")) console.log(JSON.stringify({ members, invitations }, null, 2));
        else {
          for (const m of members) console.log([m.email.padEnd(36), m.role.padEnd(9), m.name].join("  "));
          for (const i of invitations) console.log([i.email.padEnd(36), i.role.padEnd(9), `invited, link valid until ${i.expiresAt.toISOString()}`].join("  "));
        }
        break;
      }
      case "role": {
        const changed = await api.member.changeRole({ organizationId, userId: await userIdOf(target!), role: roleArg(args[2], "users role") });
        console.log(`${target}: ${changed.from} → ${changed.to}`);
        break;
      }
      case "remove": {
        const removed = await api.member.remove({ organizationId, userId: await userIdOf(target!) });
        console.log(`${removed.email} removed from the organization`);
        break;
      }
      case "reset-password": {
        const reset = await api.member.createPasswordReset({ organizationId, userId: await userIdOf(target!), expiresInHours: hoursArg(args) });
        console.log(`password-reset link for ${reset.email}, valid until ${reset.expiresAt.toISOString()} and once:\n${site}${reset.path}`);
        break;
      }
    }
    return 0;
  } catch (error) {
    if (error instanceof Error && error.name === "TRPCError") throw new Error(`users ${sub} refused: ${error.message}`);
    throw error;
  } finally {
    await producer.close();
    connection.disconnect();
    await db.$disconnect();
  }
}

async function organizationIdOf(db: Database, slug: string): Promise<string> {
  const org = await db.organization.findUnique({ where: { slug }, select: { id: true } });
  if (!org) throw new Error(`no organization "${slug}": see \`evotrainer orgs list\``);
  return org.id;
}
