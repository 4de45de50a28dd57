import { onLocalApi } from "../cli-caller.ts";
import { loadCliEnv } from "../env.ts";
import { printable } from "../printable.ts";
import { remoteCredentials } from "../remote/credentials.ts";
import { onServer } from "../remote/remote-api.ts";

const usage = `usage: evotrainer orgs create <name> --admin <email> [--slug <slug>] [--expires-hours N]
       evotrainer orgs list [--json]
  (installation admins only: the local admin, EVO_API_KEY of an installation admin, or one signed in with \`evotrainer login\`)`;

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

function localSite(): string {
  const env = loadCliEnv();
  return env.BETTER_AUTH_URL ?? `http://localhost:${env.EVO_WEB_PORT}`;
}

/**
 * `evotrainer orgs …`: the installation's organizations, through the same procedures as the
 * dashboard's Organizations page, on the server `evotrainer login` names or else in-process beside
 * this machine's database. `create` prints the first admin's invitation link once.
 */
export async function orgsCommand(args: string[]): Promise<number> {
  const [sub, name] = args;
  const remote = remoteCredentials();
  if (sub === "create") {
    const adminEmail = option(args, "--admin");
    if (!name || name.startsWith("--") || !adminEmail) throw new Error(usage);
    const hours = option(args, "--expires-hours");
    const slug = option(args, "--slug");
    const request = { name, adminEmail, ...(slug ? { slug } : {}), ...(hours ? { expiresInHours: Number(hours) } : {}) };
    const created = remote
      ? await onServer(remote, (api) => api.organization.create.mutate(request))
      : await onLocalApi("orgs create", (api) => api.organization.create(request));
    const site = (remote?.server ?? localSite()).replace(/\/$/, "");
    console.log(
      `organization ${printable(created.organization.name)} (--org ${created.organization.slug}) created.\n` +
        `invitation for its first admin, ${created.invitation.email}, valid until ${created.invitation.expiresAt.toISOString()} and for one use:\n` +
        `${site}${created.invitation.path}\n(shown once: only its hash is stored)`,
    );
    return 0;
  }
  if (sub === "list") {
    const organizations = remote ? await onServer(remote, (api) => api.organization.list.query()) : await onLocalApi("orgs list", (api) => api.organization.list());
    if (args.includes("--json")) console.log(JSON.stringify(organizations, null, 2));
    else for (const o of organizations) console.log([o.slug.padEnd(24), String(o.members).padStart(4), "members ", printable(o.name)].join("  "));
    return 0;
  }
  throw new Error(usage);
}
