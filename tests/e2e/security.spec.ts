// Issue 18: each attack an outsider ran against the dashboard on 127.0.0.1, replayed against the real
// server, now failing for the attacker. Requests that must come from another address bind their
// socket to another loopback address (127.0.0.0/8 is all loopback): the server keys on the socket.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer, request as httpRequest, type Server } from "node:http";
import { resolve } from "node:path";
import { chromium, expect, test, type ConsoleMessage } from "@playwright/test";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase, json, type Database } from "@evotrainer/db";
import { SEED_PASSWORD, seedDashboard } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

const port = Number(process.env.EVO_E2E_PORT ?? 3100);
const base = `http://127.0.0.1:${port}`;
// tests/e2e/run.ts starts the server with this address as its only trusted proxy.
const TRUSTED_PROXY = "127.0.0.2";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request from a chosen local address, with exactly the headers given. */
function send(path: string, options: { method?: string; from?: string; headers?: Record<string, string>; body?: string; url?: string } = {}): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = httpRequest(
      new URL(path, options.url ?? base),
      { method: options.method ?? (options.body === undefined ? "GET" : "POST"), localAddress: options.from ?? "127.0.0.1", headers: options.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", fail);
    req.end(options.body);
  });
}

const signInBody = (email: string, password: string) => JSON.stringify({ email, password });
const jsonPost = (extra: Record<string, string> = {}) => ({ "content-type": "application/json", origin: base, ...extra });

/** A session cookie, from a sign-in made from `from` (each address has its own ten tries a minute). */
async function sessionCookie(email: string, from: string, password = SEED_PASSWORD): Promise<string> {
  const answer = await send("/api/auth/sign-in/email", { from, headers: jsonPost(), body: signInBody(email, password) });
  expect(answer.status, answer.body).toBe(200);
  const setCookie = [answer.headers["set-cookie"] ?? []].flat();
  return setCookie.map((c) => c.split(";")[0]).join("; ");
}

const trpcGet = (path: string, input: unknown) => `/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;

/**
 * A real failure inside the database, for the 5xx path: while `fn` runs, Postgres refuses to store an
 * API key named `name` (a trigger raises), so creating one fails past every input check. Any other
 * name is stored as usual.
 */
async function whileDatabaseRefuses(name: string, fn: () => Promise<void>): Promise<void> {
  const fnName = `evo_e2e_refuse_${randomBytes(4).toString("hex")}`;
  await db.$executeRawUnsafe(
    `CREATE FUNCTION ${fnName}() RETURNS trigger AS $$ BEGIN IF NEW.name = '${name}' THEN RAISE EXCEPTION 'refused by the e2e trigger'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
  );
  await db.$executeRawUnsafe(`CREATE TRIGGER ${fnName} BEFORE INSERT ON "ApiKey" FOR EACH ROW EXECUTE FUNCTION ${fnName}()`);
  try {
    await fn();
  } finally {
    await db.$executeRawUnsafe(`DROP TRIGGER ${fnName} ON "ApiKey"`);
    await db.$executeRawUnsafe(`DROP FUNCTION ${fnName}()`);
  }
}

/** `apiKey.create` as the dashboard posts it. */
const createApiKey = (name: string, cookie: string, url = base) =>
  send("/api/trpc/apiKey.create", { url, headers: { "content-type": "application/json", origin: url, cookie }, body: JSON.stringify({ json: { name } }) });

let db: Database;
let seed: Awaited<ReturnType<typeof seedDashboard>>;
test.beforeAll(async () => {
  db = createDatabase(process.env.DATABASE_URL!);
  seed = await seedDashboard(db, "security");
});
test.afterAll(async () => {
  await db.$disconnect();
});

test("open redirect: no form of next= leaves the site after sign-in", async ({ page }) => {
  const bypasses = ["/\\evil.example/", "\\/evil.example", "//evil.example", "/%5Cevil.example/", "/%255Cevil.example/", "/\t/evil.example", "/.//evil.example", "https:evil.example", "javascript:alert(1)"];
  for (const target of bypasses) {
    await page.goto(`/sign-in?next=${encodeURIComponent(target)}`);
    await expect(page.locator("input[name=next]"), target).toHaveValue("/");
  }
  await page.goto(`/sign-in?next=${encodeURIComponent("/approvals?x=1")}`);
  await expect(page.locator("input[name=next]")).toHaveValue("/approvals?x=1");

  // The exact URL from the report: before, the browser ended on http://evil.example/.
  await page.goto("/sign-in?next=/%5Cevil.example/");
  await page.getByLabel("Email").fill(seed.users.viewer.email);
  await page.getByLabel("Password").fill(SEED_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(seed.users.viewer.email);
  expect(new URL(page.url()).origin).toBe(base);
});

test("clickjacking: a page on another port cannot frame the branch page; pages render with no CSP violation", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (m: ConsoleMessage) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await signIn(page, seed.users.approver.email);
  const branchPath = `/runs/${seed.run.id}/branches/${seed.branches.v1.id}`;
  for (const path of [`/runs/${seed.run.id}`, branchPath, `${branchPath}/rollouts`]) {
    await page.goto(path);
    await expect(page.getByTestId("signed-in-as")).toBeVisible();
  }
  // Hydrated: the client's queries ran under the policy and rendered the decision panel.
  await page.goto(branchPath);
  await expect(page.getByRole("button", { name: "Approve" })).toBeEnabled();
  expect(violations).toEqual([]);

  const attacker: Server = createServer((_req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(`<h1>Win a prize</h1><iframe id="victim" src="${base}${branchPath}" width="900" height="500"></iframe>`);
  });
  await new Promise<void>((done) => attacker.listen(port + 2, "127.0.0.1", done));
  try {
    await page.goto(`http://127.0.0.1:${port + 2}/`);
    await expect(page.getByRole("heading", { name: "Win a prize" })).toBeVisible();
    // Chromium replaces a frame it refuses with its error page.
    await expect.poll(() => page.frames().find((f) => f !== page.mainFrame())?.url()).toMatch(/^chrome-error:/);
    await expect(page.frameLocator("#victim").getByRole("button", { name: "Approve" })).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath("framing-blocked.png") });
  } finally {
    await new Promise((done) => attacker.close(done));
  }
});

test("security headers on pages, API answers and static files; HSTS only over https from a trusted proxy", async () => {
  const pageAnswer = await send("/sign-in");
  const script = /<script src="(\/_next\/static\/[^"]+\.js)"/.exec(pageAnswer.body)?.[1];
  expect(script).toBeDefined();
  const nonce = /'nonce-([^']+)'/.exec(String(pageAnswer.headers["content-security-policy"]))?.[1];
  expect(pageAnswer.body).toContain(`nonce="${nonce}"`);
  for (const answer of [pageAnswer, await send("/api/health"), await send(trpcGet("viewer.me", undefined)), await send(script!)]) {
    expect(answer.headers["x-frame-options"]).toBe("DENY");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(answer.headers["referrer-policy"]).toBe("no-referrer");
    expect(answer.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(answer.headers["strict-transport-security"]).toBeUndefined();
  }
  const viaProxy = await send("/api/health", { from: TRUSTED_PROXY, headers: { "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.50" } });
  expect(viaProxy.headers["strict-transport-security"]).toContain("max-age=");
  // Anyone else claiming https is not believed.
  const claimed = await send("/api/health", { from: "127.0.0.3", headers: { "x-forwarded-proto": "https" } });
  expect(claimed.headers["strict-transport-security"]).toBeUndefined();
});

test("rate limits: a new X-Forwarded-For per try no longer buys new tries; only a trusted proxy names the client", async () => {
  // Over a hundred password checks: a bound for a loaded machine, not a speed target.
  test.setTimeout(180_000);
  const attempt = (from: string, headers: Record<string, string> = {}) =>
    send("/api/auth/sign-in/email", { from, headers: jsonPost(headers), body: signInBody(`nobody-${randomBytes(4).toString("hex")}@example.test`, "wrong password") });
  // The server's limit (run.ts raises it above the 10 of a default installation, so specs can sign in).
  const limit = Number(process.env.EVO_SIGNINS_PER_MINUTE ?? 10);
  const statuses: number[] = [];
  for (let i = 0; i < limit + 15; i++) statuses.push((await attempt("127.0.0.9", { "x-forwarded-for": `198.51.100.${i % 250}` })).status);
  // Before: every try went through (401), a new header each. Now the limit-th is the last.
  expect(statuses.slice(0, limit).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(limit).every((s) => s === 429)).toBe(true);

  // Behind the trusted proxy, the client it appended is the key; a spoofed hop to its left is not.
  for (let i = 0; i < limit; i++) expect((await attempt(TRUSTED_PROXY, { "x-forwarded-for": "203.0.113.7" })).status).toBe(401);
  expect((await attempt(TRUSTED_PROXY, { "x-forwarded-for": "203.0.113.7" })).status).toBe(429);
  expect((await attempt(TRUSTED_PROXY, { "x-forwarded-for": "192.0.2.99, 203.0.113.7" })).status).toBe(429);
  expect((await attempt(TRUSTED_PROXY, { "x-forwarded-for": "203.0.113.8" })).status).toBe(401);
});

test("wrong passwords hold back the stranger's clients, never the account: its owner signs in from a device it used before and from one that has not failed", async () => {
  const email = `lockout-${randomBytes(3).toString("hex")}@example.test`;
  // The owner belongs to an organization of its own: the seed's admin is a stranger to it.
  const home = await db.organization.create({ data: { name: "Lockout home", slug: `lockout-${randomBytes(3).toString("hex")}` } });
  await createLocalUser(db, { email, name: "Lockout", password: SEED_PASSWORD, organizationId: home.id, role: "viewer" });
  const tryPassword = (from: string, password: string) => send("/api/auth/sign-in/email", { from, headers: jsonPost(), body: signInBody(email, password) });
  // The owner is signed in on another device before the attack.
  const ownerCookie = await sessionCookie(email, "127.0.0.12");
  // One stranger's address: ten tries, then it waits.
  for (let i = 0; i < 10; i++) expect((await tryPassword("127.0.0.20", `guess ${i}`)).status).toBe(401);
  const heldBack = await tryPassword("127.0.0.20", SEED_PASSWORD);
  expect(heldBack.status).toBe(429);
  expect(JSON.parse(heldBack.body).message).toMatch(/from your address.*not locked/);
  // The account is under attack now: another stranger's address gets only three.
  for (let i = 0; i < 3; i++) expect((await tryPassword("127.0.0.21", `other guess ${i}`)).status).toBe(401);
  expect((await tryPassword("127.0.0.21", `other guess 3`)).status).toBe(429);
  // Before: 429 for the owner everywhere for 15 minutes.
  await sessionCookie(email, "127.0.0.12");
  await sessionCookie(email, "127.0.0.11");

  // Invitation acceptance checks the same password, and any organization's admin can invite any email:
  // its wrong passwords hold back the client there and never count at sign-in.
  const adminCookie = await sessionCookie(seed.users.admin.email, "127.0.0.13");
  const invited = await send("/api/trpc/member.invite", { headers: jsonPost({ cookie: adminCookie }), body: JSON.stringify({ json: { organizationId: seed.org.id, email, role: "approver" } }) });
  expect(invited.status, invited.body).toBe(200);
  const token = String(JSON.parse(invited.body).result.data.json.path).split("/").at(-1);
  const accept = (from: string, password: string) =>
    send("/api/trpc/member.acceptInvitation", { from, headers: jsonPost(), body: JSON.stringify({ json: { token, password } }) });
  // The account is still under attack (the sign-in guesses above), so this new client gets three here too.
  for (let i = 0; i < 3; i++) expect((await accept("127.0.0.22", `invitation guess ${i}`)).status).toBe(401);
  expect((await accept("127.0.0.22", SEED_PASSWORD)).status).toBe(429);
  await sessionCookie(email, "127.0.0.22");

  // A new password forgets every wrong one.
  const newPassword = "a brand new passphrase";
  const changed = await send("/api/auth/change-password", { from: "127.0.0.12", headers: jsonPost({ cookie: ownerCookie }), body: JSON.stringify({ currentPassword: SEED_PASSWORD, newPassword }) });
  expect(changed.status, changed.body).toBe(200);
  expect((await tryPassword("127.0.0.20", "guess after the change")).status).toBe(401);
  await sessionCookie(email, "127.0.0.21", newPassword);
});

test("errors: ids past int64 are a 400 naming the field; a 5xx says only its request id", async () => {
  const cookie = await sessionCookie(seed.users.viewer.email, "127.0.0.13");
  const huge = "99999999999999999999";
  const overflows = [
    trpcGet("rollout.list", { branchId: seed.branches.v1.id, cursor: huge }),
    trpcGet("rollout.byId", { rolloutId: "9223372036854775808" }),
    trpcGet("rollout.compare", { rolloutId: huge, otherBranchId: seed.branches.v2.id }),
    trpcGet("run.llmCall", { runId: seed.run.id, eventId: huge }),
    trpcGet("rollout.list", { branchId: seed.branches.v1.id, step: 2 ** 40 }),
  ];
  for (const path of overflows) {
    const answer = await send(path, { headers: { cookie } });
    // Before: 500 with "Invalid `prisma.rollout.findMany()` invocation: Value out of range".
    expect(answer.status, path).toBe(400);
    expect(answer.body).not.toMatch(/prisma|invocation/i);
  }
  // The largest int64 is a valid id: no such rollout.
  expect((await send(trpcGet("rollout.byId", { rolloutId: "9223372036854775807" }), { headers: { cookie } })).status).toBe(404);

  // A NUL byte is refused before any schema, naming the field; a failure inside the database is a real 500.
  const nul = await send(trpcGet("run.byId", { runId: "a\u0000b" }), { headers: { cookie } });
  expect(nul.status).toBe(400);
  expect(JSON.parse(nul.body).error.json.message).toMatch(/runId/);
  const name = `refused ${randomBytes(4).toString("hex")}`;
  await whileDatabaseRefuses(name, async () => {
    const failed = await createApiKey(name, cookie);
    expect(failed.status, failed.body).toBe(500);
    const requestId = String(failed.headers["x-request-id"]);
    expect(JSON.parse(failed.body).error.json.message).toBe(`internal error (request id ${requestId})`);
    expect(failed.body).not.toMatch(/prisma|trigger|invocation|stack/i);
  });
});

test("the server log has the details of a 5xx; a forged session cookie on / logs no error", async () => {
  // A second dashboard process on the same build, started as the quickstart starts it, to read its log.
  const logPort = port + 1;
  let log = "";
  const server: ChildProcess = spawn(resolve("node_modules/.bin/tsx"), ["server.ts", "--port", String(logPort), "--hostname", "127.0.0.1"], {
    cwd: "apps/web",
    env: process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  try {
    await expect.poll(() => log, { timeout: 60_000 }).toContain(`on http://127.0.0.1:${logPort}`);
    const url = `http://127.0.0.1:${logPort}`;
    for (const forged of ["better-auth.session_token=forged.value", "better-auth.session_token=abc.mlBsRW2%2BqaCH50WoOQHc4XHfv0mgMEMCU7tdDgLRdhc%3D", "__Secure-better-auth.session_token=x"]) {
      const answer = await send("/", { url, headers: { cookie: forged } });
      expect(answer.status).toBe(307);
      expect(answer.headers.location).toMatch(/^(http:\/\/127\.0\.0\.1:\d+)?\/sign-in$/);
    }
    const cookie = await sessionCookie(seed.users.viewer.email, "127.0.0.14");
    const name = `refused ${randomBytes(4).toString("hex")}`;
    await whileDatabaseRefuses(name, async () => {
      const failed = await createApiKey(name, cookie, url);
      expect(failed.status, failed.body).toBe(500);
      const requestId = String(failed.headers["x-request-id"]);
      // The 5xx's line is the last thing written: everything the forged cookies caused came before it.
      await expect.poll(() => log).toContain(`[${requestId}]`);
      expect(log).toMatch(/refused by the e2e trigger/);
      const beforeFailure = log.slice(0, log.indexOf(`[${requestId}]`));
      expect(beforeFailure).not.toMatch(/⨯|Error/);
    });
  } finally {
    server.kill("SIGTERM");
  }
});

test("share links: the sealed split stays unseen until its release, then only its scores", async ({ page }) => {
  const branchId = seed.branches.v1.id;
  const secret = `sealed answer ${randomBytes(4).toString("hex")}`;
  await db.rollout.createMany({
    data: Array.from({ length: 4 }, (_, i) => ({
      runId: seed.run.id,
      branchId,
      split: "sealed" as const,
      step: 20,
      taskId: `sealed-task-${i}`,
      groupId: `sg-${i}`,
      sample: 0,
      reward: i % 2,
      responseTokens: 100,
      prompt: `sealed prompt ${i}`,
      response: `${secret} ${i}`,
      uid: `sealed-${i}-${secret}`,
    })),
  });
  const token = `evs_${randomBytes(32).toString("base64url")}`;
  await db.shareLink.create({ data: { runId: seed.run.id, tokenHash: createHash("sha256").update(token).digest("hex"), createdById: seed.users.approver.id } });
  const shared = { "x-evo-share-token": token };
  const sealedRow = await db.rollout.findFirstOrThrow({ where: { branchId, split: "sealed" } });

  // Before: 200 with the sealed rows, prompts and answers.
  expect((await send(trpcGet("rollout.list", { branchId, split: "sealed" }), { headers: shared })).status).toBe(403);
  const all = JSON.parse((await send(trpcGet("rollout.list", { branchId, limit: 200 }), { headers: shared })).body).result.data.json;
  expect(all.items.some((r: { split: string }) => r.split === "sealed")).toBe(false);
  expect((await send(trpcGet("rollout.byId", { rolloutId: String(sealedRow.id) }), { headers: shared })).status).toBe(403);
  await page.goto(`/share/${token}/branches/${branchId}/rollouts?split=sealed`);
  // The client retries a failed query a few times before it shows the error.
  await expect(page.getByText(/Could not load rollouts: .*does not see the sealed split/)).toBeVisible({ timeout: 20_000 });
  expect(await page.content()).not.toContain(secret);

  // Released: the scores, and nothing of the tasks or answers.
  await db.run.update({ where: { id: seed.run.id }, data: { finalReport: json({ sealed: { branchId, score: 0.5, tasks: 4 } }) } });
  const released = JSON.parse((await send(trpcGet("rollout.list", { branchId, split: "sealed" }), { headers: shared })).body).result.data.json;
  expect(released.items).toHaveLength(4);
  expect(released.items.map((r: { reward: number; taskId: string | null }) => [r.reward, r.taskId])).toEqual([[0, null], [1, null], [0, null], [1, null]]);
  expect((await send(trpcGet("rollout.byId", { rolloutId: String(sealedRow.id) }), { headers: shared })).status).toBe(403);
  const searched = JSON.parse((await send(trpcGet("rollout.list", { branchId, q: "sealed answer" }), { headers: shared })).body).result.data.json;
  expect(searched.items).toHaveLength(0);
  await page.goto(`/share/${token}/branches/${branchId}/rollouts?split=sealed`);
  await expect(page.getByText("4 loaded")).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  expect(await page.content()).not.toContain("sealed-task-");
});

test("Origin: a cross-site mutation with the user's cookie is refused; the CLI's API key needs none", async () => {
  const cookie = await sessionCookie(seed.users.approver.email, "127.0.0.15");
  const before = await db.shareLink.count({ where: { runId: seed.run.id } });
  const create = (headers: Record<string, string>) =>
    send("/api/trpc/shareLink.create", { headers: { "content-type": "application/json", cookie, ...headers }, body: JSON.stringify({ json: { runId: seed.run.id } }) });
  // Before: 200 and a live share link for the attacker's page.
  expect((await create({ origin: "http://evil.example" })).status).toBe(403);
  expect((await create({ origin: `http://127.0.0.1:${port + 2}` })).status).toBe(403);
  expect((await create({})).status).toBe(403);
  expect(await db.shareLink.count({ where: { runId: seed.run.id } })).toBe(before);
  expect((await create({ origin: base })).status).toBe(200);

  const signOut = await send("/api/auth/sign-out", { headers: { "content-type": "application/json", cookie, origin: "http://evil.example" }, body: "{}" });
  expect(signOut.status).toBe(403);

  const key = JSON.parse((await send("/api/trpc/apiKey.create", { headers: jsonPost({ cookie }), body: JSON.stringify({ json: { name: "cli" } }) })).body).result.data.json.key;
  const viaKey = await send("/api/trpc/shareLink.create", { headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ json: { runId: seed.run.id } }) });
  expect(viaKey.status).toBe(200);
});

test("a viewer cannot create an organization", async () => {
  const cookie = await sessionCookie(seed.users.viewer.email, "127.0.0.16");
  const slug = `viewer-org-${randomBytes(3).toString("hex")}`;
  const answer = await send("/api/auth/organization/create", { headers: jsonPost({ cookie }), body: JSON.stringify({ name: "Mine now", slug }) });
  // Before: 200, and the viewer was admin of the new organization.
  expect(answer.status).toBe(403);
  expect(await db.organization.count({ where: { slug } })).toBe(0);
});

test("session tokens stay out of sign-in, get-session and list-sessions answers", async () => {
  const signedIn = await send("/api/auth/sign-in/email", { from: "127.0.0.17", headers: jsonPost(), body: signInBody(seed.users.viewer.email, SEED_PASSWORD) });
  const cookie = [signedIn.headers["set-cookie"] ?? []].flat().map((c) => c.split(";")[0]).join("; ");
  const token = decodeURIComponent(cookie.split("=")[1]!).split(".")[0]!;
  expect(token.length).toBeGreaterThan(20);
  const session = await send("/api/auth/get-session", { headers: { cookie } });
  const sessions = await send("/api/auth/list-sessions", { headers: { cookie } });
  expect(JSON.parse(session.body).user.email).toBe(seed.users.viewer.email);
  expect(JSON.parse(sessions.body).length).toBeGreaterThan(0);
  for (const answer of [signedIn, session, sessions]) {
    expect(answer.body).not.toContain(token);
    expect(answer.body).not.toContain('"token"');
  }
});

test("over plain http on a host name other than loopback, sign-in works: the session cookie is Secure only over https", async () => {
  // A browser that reaches the server as evo.internal, a name that is not loopback.
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run", "--host-resolver-rules=MAP evo.internal 127.0.0.1"],
  });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const site = `http://evo.internal:${port}`;
    // Before: 200, then the browser dropped the Secure cookie and showed the empty form again.
    const email = seed.users.viewer.email;
    await page.goto(`${site}/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(SEED_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toHaveText(email);
    expect((await context.cookies(site)).find((c) => c.name === "better-auth.session_token")?.secure).toBe(false);
  } finally {
    await browser.close();
  }
});
