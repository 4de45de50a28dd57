// Issue 28: the admin of a second organization took over the installation admin's account with five
// calls and no action from the victim. Replayed here against the real quickstart, with the two
// organizations set up as an installation admin does it (`evotrainer orgs create`); before the fix,
// step 2 answered 200 and the rest of the chain followed.
import { spawnSync } from "node:child_process";
import { expect, test, type Browser } from "@playwright/test";
import { createLocalUser, ensureLocalAdmin } from "@evotrainer/api";
import { createDatabase, type Database } from "@evotrainer/db";
import { CLI } from "../support/cli.ts";

const port = Number(process.env.EVO_E2E_PORT ?? 3100);
const base = `http://127.0.0.1:${port}`;
const tag = Date.now().toString(36);
const victim = { email: `victim-${tag}@example.test`, password: "the victim's own password" };
const mallory = { email: `mallory-${tag}@example.test`, password: "mallory's password 1" };

let db: Database;

/** `evotrainer orgs create` as the installation's local admin; returns the first admin's invitation token. */
function createOrganization(name: string, adminEmail: string): string {
  const run = spawnSync(process.execPath, [CLI, "orgs", "create", name, "--admin", adminEmail], { env: process.env, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  const token = /\/invite\/(evi_[A-Za-z0-9_-]+)/.exec(run.stdout)?.[1];
  expect(token, run.stdout).toBeDefined();
  return token!;
}

const QUERIES = new Set(["member.invitation", "run.list", "branch.byId"]);

/** One tRPC call as the dashboard makes it: GET for queries, POST for mutations. */
async function trpc(path: string, input: unknown, cookie?: string): Promise<{ status: number; message: string; data: unknown }> {
  const payload = JSON.stringify({ json: input });
  const headers = { "content-type": "application/json", origin: base, ...(cookie ? { cookie } : {}) };
  const response = QUERIES.has(path)
    ? await fetch(`${base}/api/trpc/${path}?input=${encodeURIComponent(payload)}`, { headers })
    : await fetch(`${base}/api/trpc/${path}`, { method: "POST", headers, body: payload });
  const body = (await response.json()) as { result?: { data?: { json?: unknown } }; error?: { json?: { message?: string } } };
  return { status: response.status, message: body.error?.json?.message ?? "", data: body.result?.data?.json };
}

async function signInCookie(email: string, password: string): Promise<{ status: number; cookie: string }> {
  const response = await fetch(`${base}/api/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/json", origin: base }, body: JSON.stringify({ email, password }) });
  return { status: response.status, cookie: response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") };
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  db = createDatabase(process.env.DATABASE_URL!);
  // The CLI acts as the local admin, the installation admin the quickstart made.
  await ensureLocalAdmin(db);
});
test.afterAll(async () => {
  await db.$disconnect();
});

test("orgs create makes two organizations; their first admins join by link; only the installation admin may create more", async () => {
  const victimToken = createOrganization(`Victim org ${tag}`, victim.email);
  const malloryToken = createOrganization(`Mallory org ${tag}`, mallory.email);
  expect((await trpc("member.acceptInvitation", { token: victimToken, name: "Victor", password: victim.password })).status).toBe(200);
  expect((await trpc("member.acceptInvitation", { token: malloryToken, name: "Mallory", password: mallory.password })).status).toBe(200);
  // The victim is also an installation admin, as in the report.
  await db.user.update({ where: { email: victim.email }, data: { role: "admin" } });
  const { cookie } = await signInCookie(mallory.email, mallory.password);
  const refused = await trpc("organization.create", { name: "Mine now", adminEmail: mallory.email }, cookie);
  expect(refused).toMatchObject({ status: 403, message: "Only an installation admin manages organizations." });
});

test("the five-step takeover chain is refused at its second step, and each later step on its own", async () => {
  const { cookie } = await signInCookie(mallory.email, mallory.password);
  const malloryOrg = await db.organization.findFirstOrThrow({ where: { name: `Mallory org ${tag}` } });
  const victimUser = await db.user.findUniqueOrThrow({ where: { email: victim.email } });
  // An API key the victim made before: it must keep working, since no reset may happen.
  const victimKey = ((await trpc("apiKey.create", { name: "laptop" }, (await signInCookie(victim.email, victim.password)).cookie)).data as { key: string }).key;

  // 1. Invite the victim's email into B: an invitation is only a link, that much is allowed.
  const invited = await trpc("member.invite", { organizationId: malloryOrg.id, email: victim.email, role: "admin" }, cookie);
  expect(invited.status).toBe(200);
  const token = /evi_[A-Za-z0-9_-]+/.exec((invited.data as { path: string }).path)![0];
  // The link does not tell Mallory that the email has an account.
  const lookup = await trpc("member.invitation", { token }, cookie);
  expect(lookup.data).not.toHaveProperty("existingAccount");

  // 2. Accept it with any name and password and no session: before, the existing account joined B.
  const accepted = await trpc("member.acceptInvitation", { token, name: "anything", password: "attacker chosen pw" });
  expect(accepted).toMatchObject({ status: 401, message: `To join with the account of ${victim.email}, sign in as it first or type its current password.` });
  expect(await db.membership.count({ where: { organizationId: malloryOrg.id, userId: victimUser.id } })).toBe(0);

  // 3. A reset link for someone who is not in B does not exist to Mallory.
  const reset = await trpc("member.createPasswordReset", { organizationId: malloryOrg.id, userId: victimUser.id }, cookie);
  expect(reset.status).toBe(404);
  // ...and had the victim joined B themselves, Mallory still manages no credentials of an account in A.
  await db.membership.create({ data: { organizationId: malloryOrg.id, userId: victimUser.id, role: "viewer" } });
  const resetMember = await trpc("member.createPasswordReset", { organizationId: malloryOrg.id, userId: victimUser.id }, cookie);
  expect(resetMember.status).toBe(403);
  expect(resetMember.message).toContain("only an installation admin can reset their password");

  // 4–5. No reset happened: the victim's password and API key work, the attacker's password does not.
  expect((await signInCookie(victim.email, "attacker chosen pw")).status).toBe(401);
  expect((await signInCookie(victim.email, victim.password)).status).toBe(200);
  const keyed = await fetch(`${base}/api/trpc/viewer.me`, { headers: { authorization: `Bearer ${victimKey}` } });
  expect(keyed.status).toBe(200);

  // better-auth's admin endpoints: 401 without a session (before: 500), 403 for an organization admin.
  expect((await fetch(`${base}/api/auth/admin/list-users`)).status).toBe(401);
  expect((await fetch(`${base}/api/auth/admin/list-users`, { headers: { cookie } })).status).toBe(403);
  const victimSession = await signInCookie(victim.email, victim.password);
  expect((await fetch(`${base}/api/auth/admin/list-users`, { headers: { cookie: victimSession.cookie } })).status).toBe(200);
});

test("the invite page for an existing account says so and works with its password; errors are sentences", async ({ browser }) => {
  const malloryOrg = await db.organization.findFirstOrThrow({ where: { name: `Mallory org ${tag}` } });
  const { cookie } = await signInCookie(mallory.email, mallory.password);
  const friend = { email: `friend-${tag}@example.test`, password: "friend's password 1" };
  const victimOrg = await db.organization.findFirstOrThrow({ where: { name: `Victim org ${tag}` } });
  await createLocalUser(db, { email: friend.email, name: "Friend", password: friend.password, organizationId: victimOrg.id, role: "viewer" });
  const invited = await trpc("member.invite", { organizationId: malloryOrg.id, email: friend.email, role: "approver" }, cookie);
  const path = (invited.data as { path: string }).path;

  const page = await (await (browser as Browser).newContext()).newPage();
  await page.goto(path);
  await expect(page.getByTestId("existing-account-note")).toContainText(`Already have an EvoTrainer account with ${friend.email}? Type its current password`);
  await page.getByLabel(/Choose a password/).fill("not the password");
  await page.getByRole("button", { name: "Join", exact: true }).click();
  const alert = page.locator("p[role=alert]");
  await expect(alert).toHaveText(`To join with the account of ${friend.email}, sign in as it first or type its current password.`);
  await page.getByLabel(/Choose a password/).fill(friend.password);
  await page.getByRole("button", { name: "Join", exact: true }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(friend.email, { timeout: 30_000 });
  const membership = await db.membership.findFirstOrThrow({ where: { organizationId: malloryOrg.id, user: { email: friend.email } } });
  expect(membership.role).toBe("approver");
  // A new account with no name: the field is named in a sentence, never zod's JSON.
  const fresh = await trpc("member.invite", { organizationId: malloryOrg.id, email: `fresh-${tag}@example.test`, role: "viewer" }, cookie);
  const freshPage = await (await (browser as Browser).newContext()).newPage();
  await freshPage.goto((fresh.data as { path: string }).path);
  await freshPage.getByLabel(/Choose a password/).fill("a long enough password");
  await freshPage.getByRole("button", { name: "Join", exact: true }).click();
  await expect(freshPage.locator("p[role=alert]")).toHaveText("name: give your name to create your account.");
});

test("sign-in without JavaScript posts the form: no password in any URL, and the session works", async ({ browser }) => {
  const context = await (browser as Browser).newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  await page.goto("/sign-in?next=/approvals");
  await expect(page.locator("form")).toHaveAttribute("method", "post");
  await page.getByLabel("Email").fill(mallory.email);
  await page.getByLabel("Password").fill("a wrong password!");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("p[role=alert]")).toHaveText("That email and password do not match an account.");
  await page.getByLabel("Email").fill(mallory.email);
  await page.getByLabel("Password").fill(mallory.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(mallory.email, { timeout: 30_000 });
  expect(new URL(page.url()).pathname).toBe("/approvals");
  expect(urls.filter((u) => u.includes("password") || u.includes(encodeURIComponent(mallory.password)))).toEqual([]);
});

test("bad input is a 400 naming the field and big bodies are refused unread; auth routes never answer 500", async () => {
  const { cookie } = await signInCookie(mallory.email, mallory.password);
  for (const [path, input, field] of [
    ["run.list", { q: "a\u0000b" }, "q"],
    ["branch.byId", { branchId: "x\u0000" }, "branchId"],
    ["apiKey.create", { name: "k\uD800" }, "name"],
    ["notification.createWebhook", { name: "w\u0000", kind: "generic", url: "https://example.com/" }, "name"],
  ] as const) {
    const answer = await trpc(path, input, cookie);
    expect(answer.status, path).toBe(400);
    expect(answer.message.startsWith(`${field}: `), answer.message).toBe(true);
  }
  const huge = await fetch(`${base}/api/trpc/apiKey.create`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, cookie },
    body: `{"json":{"name":"${"x".repeat(40 * 1024 * 1024)}"}}`,
  });
  expect(huge.status).toBe(413);
  for (const [path, init] of [
    ["/api/auth/admin/list-users", {}],
    ["/api/auth/admin/list-users", { method: "POST", headers: { origin: base, "content-type": "application/json" }, body: "" }],
    ["/api/auth/sign-in/email", { method: "POST", headers: { origin: base, "content-type": "application/json" }, body: "{not json" }],
    ["/api/auth/sign-in/email", { method: "POST", headers: { origin: base, "content-type": "application/json" }, body: JSON.stringify({ email: "a\u0000@x.test", password: "p\uD800" }) }],
  ] as const) {
    const answer = await fetch(`${base}${path}`, init as RequestInit);
    expect(answer.status, `${path} ${JSON.stringify(init)}`).toBeGreaterThanOrEqual(400);
    expect(answer.status, `${path} ${JSON.stringify(init)}`).toBeLessThan(500);
  }
});
