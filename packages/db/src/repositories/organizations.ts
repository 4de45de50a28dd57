import type { Database } from "../client.ts";

/** Better Auth admin plugin's role on the user row: the installation admin, distinct from any organization's admin. */
export const INSTALLATION_ADMIN_ROLE = "admin";

export async function isInstallationAdmin(db: Database, userId: string): Promise<boolean> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { role: true } });
  return user?.role === INSTALLATION_ADMIN_ROLE;
}

export interface OrganizationSummary {
  id: string;
  name: string;
  slug: string;
  members: number;
  createdAt: Date;
}

/** A slug from a name: lower-case letters, digits and dashes, as URLs and `--org` take it. */
export function slugOf(name: string): string {
  return name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
}

/** A new, empty organization; refused when its slug is taken. Its first admin joins by invitation. */
export async function createOrganization(
  db: Database,
  input: { name: string; slug: string },
): Promise<{ outcome: "created"; organization: OrganizationSummary } | { outcome: "refused"; message: string }> {
  const taken = await db.organization.findUnique({ where: { slug: input.slug }, select: { id: true } });
  if (taken) return { outcome: "refused", message: `slug: an organization named "${input.slug}" already exists; pick another name or slug.` };
  const row = await db.organization.create({ data: { name: input.name, slug: input.slug } });
  return { outcome: "created", organization: { id: row.id, name: row.name, slug: row.slug, members: 0, createdAt: row.createdAt } };
}

export async function listOrganizations(db: Database): Promise<OrganizationSummary[]> {
  const rows = await db.organization.findMany({ orderBy: { createdAt: "asc" }, select: { id: true, name: true, slug: true, createdAt: true, _count: { select: { memberships: true } } } });
  return rows.map(({ _count, ...row }) => ({ ...row, members: _count.memberships }));
}
