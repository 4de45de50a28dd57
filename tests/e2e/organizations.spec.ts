// Issue 28: installation admins create organizations from Settings → Organizations, and each one's
// first admin joins by the link shown once. An organization's own admin is not offered the form.
import { expect, test } from "@playwright/test";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase, INSTALLATION_ADMIN_ROLE } from "@evotrainer/db";
import { SEED_PASSWORD, seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

const shots = "test-results/screenshots";
const db = createDatabase(process.env.DATABASE_URL!);
const tag = Date.now().toString(36);
const lead = { email: `org-lead-${tag}@example.test`, name: "Olga Lead", password: "organization lead password" };

test.afterAll(() => db.$disconnect());

test("an installation admin creates an organization in Settings → Organizations; its first admin joins by the link", async ({ page, browser }) => {
  const seed = await seedDashboard(db, "organizations");
  const email = `installation-admin-${tag}@example.test`;
  const user = await createLocalUser(db, { email, name: "Installation admin", password: SEED_PASSWORD, organizationId: seed.org.id, role: "admin" });
  await db.user.update({ where: { id: user.id }, data: { role: INSTALLATION_ADMIN_ROLE } });

  await signIn(page, email);
  await page.getByRole("link", { name: "Organizations", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Organizations", exact: true })).toBeVisible();
  await expect(page.getByTestId("organization-row").filter({ hasText: seed.org.slug })).toHaveCount(1);
  await page.getByLabel("Organization name").fill(`Research ${tag}`);
  await page.getByLabel("First admin's email").fill(lead.email);
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByTestId("once-link")).toContainText(`Organization Research ${tag} created. Invitation for its first admin, ${lead.email}`);
  const link = (await page.getByTestId("once-link-url").textContent())!;
  expect(link).toMatch(/\/invite\/evi_/);
  const row = page.getByTestId("organization-row").filter({ hasText: `research-${tag}` });
  await expect(row).toContainText(`Research ${tag}`);
  await expect(row.getByRole("cell").nth(2)).toHaveText("0");
  await page.screenshot({ path: `${shots}/organizations-created.png`, fullPage: true });

  // The first admin, a new account, joins the new organization as its admin.
  const joining = await (await browser.newContext()).newPage();
  await joining.goto(link);
  await expect(joining.locator("main")).toContainText("as admin");
  await joining.getByLabel("Your name").fill(lead.name);
  await joining.getByLabel(/Choose a password/).fill(lead.password);
  await joining.getByRole("button", { name: "Join", exact: true }).click();
  await expect(joining.getByTestId("signed-in-as")).toHaveText(lead.email, { timeout: 30_000 });
  const membership = await db.membership.findFirstOrThrow({ where: { user: { email: lead.email }, organization: { slug: `research-${tag}` } } });
  expect(membership.role).toBe("admin");
  // An organization's admin is not an installation admin: no link in the bar, and the page says who creates organizations.
  await expect(joining.getByRole("link", { name: "Organizations", exact: true })).toHaveCount(0);
  await joining.goto("/settings/organizations");
  await expect(joining.getByTestId("organizations-forbidden")).toContainText("Only an installation admin creates organizations.");
  await expect(joining.getByRole("button", { name: "Create organization" })).toHaveCount(0);

  await page.reload();
  await expect(page.getByTestId("organization-row").filter({ hasText: `research-${tag}` }).getByRole("cell").nth(2)).toHaveText("1");
});
