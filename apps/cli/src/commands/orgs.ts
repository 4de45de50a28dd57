import { onLocalApi } from "../cli-caller.ts";
import { loadCliEnv } from "../env.ts";

const usage = `usage: evotrainer orgs create <name> --admin <email> [--slug <slug>] [--expires-hours N]
       evotrainer orgs list [--json]
  (installation admins only: the local admin, or EVO_API_KEY of an installation admin)`;

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

/**
 * `evotrainer orgs …`: the installation's organizations, through the same procedures as the
 * dashboard's Organizations page. `create` prints the first admin's invitation link once.
 */
export async function orgsCommand(args: string[]): Promise<number> {
  const [sub, name] = args;
  if (sub === "create") {
    const adminEmail = option(args, "--admin");
    if (!name || name.startsWith("--") || !adminEmail) throw new Error(usage);
    const hours = option(args, "--expires-hours");
    const slug = option(args, "--slug");
    const created = await onLocalApi("orgs create", (api) =>
      api.organization.create({ name, adminEmail, ...(slug ? { slug } : {}), ...(hours ? { expiresInHours: Number(hours) } : {}) }),
    );
    const env = loadCliEnv();
    const site = (env.BETTER_AUTH_URL ?? `http://localhost:${env.EVO_WEB_PORT}`).replace(/\/$/, "");
    console.log(
      `organization ${created.organization.name} (--org ${created.organization.slug}) created.\n` +
        `invitation for its first admin, ${created.invitation.email}, valid until ${created.invitation.expiresAt.toISOString()} and for one use:\n` +
        `${site}${created.invitation.path}\n(shown once: only its hash is stored)`,
    );
    return 0;
  }
  if (sub === "list") {
    const organizations = await onLocalApi("orgs list", (api) => api.organization.list());
    if (args.includes("--json")) console.log(JSON.stringify(organizations, null, 2));
    else for (const o of organizations) console.log([o.slug.padEnd(24), String(o.members).padStart(4), "members ", o.name].join("  "));
    return 0;
  }
  throw new Error(usage);
}
