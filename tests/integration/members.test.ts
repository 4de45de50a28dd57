import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { NO_PASSWORD_GUARD, redisPasswordGuard, verifyPassword } from "@evotrainer/api";
import { PASSWORD_LIMITS } from "@evotrainer/core";
import { apiHarness, httpStatusOf } from "../support/api-harness.ts";
import { SEED_PASSWORD, seedDashboard } from "../support/dashboard-seed.ts";
import { CLI } from "../support/cli.ts";

// A database of its own: members and decisions are written here.
const redisUrl = inject("redisUrl");
const harness = await apiHarness(inject("databaseUrl"), redisUrl);
const { database, db, prefix, connection, producer } = harness;

const as = (userId: string | null) => harness.callerAs({ userId });
const anonymous = () => as(null);
const tokenOf = (path: string) => path.split("/").at(-1)!;


async function passwordWorks(userId: string, password: string): Promise<boolean> {
  const account = await db.account.findFirstOrThrow({ where: { userId, providerId: "credential" } });
  return verifyPassword({ hash: account.password!, password });
}

let seed: Awaited<ReturnType<typeof seedDashboard>>;
let orgId: string;

beforeAll(async () => {
  await connection.connect();
  seed = await seedDashboard(db, "members");
  orgId = seed.org.id;
});

afterAll(async () => {
  await harness.close();
});

describe("invitations", () => {
  it("an admin's invitation link signs the invitee up once, with the invited role, and only its hash is stored", async () => {
    const invited = await as(seed.users.admin.id).member.invite({ organizationId: orgId, email: "New.Approver@Example.test", role: "approver" });
    const token = tokenOf(invited.path);
    expect(invited.path).toMatch(/^\/invite\/evi_[A-Za-z0-9_-]{43}$/);
    const row = await db.invitation.findUniqueOrThrow({ where: { id: invited.invitationId } });
    expect(row.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(token.slice(4));

    expect(await anonymous().member.invitation({ token })).toEqual({ organizationName: seed.org.name, email: "new.approver@example.test", role: "approver", signedInAsInvitee: false });
    expect(await anonymous().member.acceptInvitation({ token, name: "New Approver", password: "a long enough password" })).toMatchObject({ email: "new.approver@example.test", role: "approver" });

    const user = await db.user.findUniqueOrThrow({ where: { email: "new.approver@example.test" } });
    expect(await passwordWorks(user.id, "a long enough password")).toBe(true);
    const membership = await db.membership.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: orgId, userId: user.id } } });
    expect(membership.role).toBe("approver");
    // The role applies at once: the new approver decides the seeded branch awaiting a decision.
    expect((await as(user.id).run.byId({ runId: seed.run.id })).role).toBe("approver");

    // Single use: the same link again is refused, and no second account appears.
    const again = anonymous().member.acceptInvitation({ token, name: "Someone Else", password: "another long password" });
    await expect(again).rejects.toMatchObject({ code: "UNAUTHORIZED", message: expect.stringContaining("already used") });
    expect(await db.user.count({ where: { email: "new.approver@example.test" } })).toBe(1);
    expect(await passwordWorks(user.id, "a long enough password")).toBe(true);
  });

  it("an expired link is refused with what to do, and creates nothing", async () => {
    const invited = await as(seed.users.admin.id).member.invite({ organizationId: orgId, email: "late@example.test", role: "viewer" });
    await db.invitation.update({ where: { id: invited.invitationId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const token = tokenOf(invited.path);
    await expect(anonymous().member.invitation({ token })).rejects.toMatchObject({ code: "UNAUTHORIZED", message: expect.stringContaining("expired: ask an admin for a new one") });
    expect(await httpStatusOf(anonymous().member.acceptInvitation({ token, name: "Late", password: "a long enough password" }))).toBe(401);
    expect(await db.user.count({ where: { email: "late@example.test" } })).toBe(0);
  });

  it("a newer invitation replaces the older link, and a made-up or missing token is 401", async () => {
    const first = await as(seed.users.admin.id).member.invite({ organizationId: orgId, email: "twice@example.test", role: "viewer" });
    const second = await as(seed.users.admin.id).member.invite({ organizationId: orgId, email: "twice@example.test", role: "approver" });
    expect(await httpStatusOf(anonymous().member.invitation({ token: tokenOf(first.path) }))).toBe(401);
    expect((await anonymous().member.invitation({ token: tokenOf(second.path) })).role).toBe("approver");
    expect(await httpStatusOf(anonymous().member.acceptInvitation({ token: "evi_made-up", name: "x", password: "a long enough password" }))).toBe(401);
    expect(await httpStatusOf(anonymous().member.acceptInvitation({ name: "x", password: "a long enough password" } as never))).toBe(401);
  });

  it("a short password is refused before anything is created, and the link still works after", async () => {
    const invited = await as(seed.users.admin.id).member.invite({ organizationId: orgId, email: "short@example.test", role: "viewer" });
    const token = tokenOf(invited.path);
    await expect(anonymous().member.acceptInvitation({ token, name: "Short", password: "short" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await db.user.count({ where: { email: "short@example.test" } })).toBe(0);
    expect((await anonymous().member.invitation({ token })).email).toBe("short@example.test");
  });

  it("refuses inviting an existing member, and anyone but an admin", async () => {
    await expect(as(seed.users.admin.id).member.invite({ organizationId: orgId, email: seed.users.viewer.email, role: "admin" })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await httpStatusOf(as(seed.users.approver.id).member.invite({ organizationId: orgId, email: "x@example.test", role: "admin" }))).toBe(403);
    expect(await httpStatusOf(as(seed.users.viewer.id).member.invite({ organizationId: orgId, email: "x@example.test", role: "viewer" }))).toBe(403);
    expect(await db.invitation.count({ where: { email: "x@example.test" } })).toBe(0);
  });
});

describe("roles and removal", () => {
  it("the list shows members to every member, invitations to admins only", async () => {
    const byAdmin = await as(seed.users.admin.id).member.list({ organizationId: orgId });
    expect(byAdmin.members.map((m) => m.role).slice(0, 1)).toEqual(["admin"]);
    expect(byAdmin.invitations.length).toBeGreaterThan(0);
    const byViewer = await as(seed.users.viewer.id).member.list({ organizationId: orgId });
    expect(byViewer).toMatchObject({ callerRole: "viewer", invitations: [] });
    expect(byViewer.members.map((m) => m.email)).toContain(seed.users.admin.email);
  });

  it("an admin changes a role, which applies to the next request", async () => {
    const other = await seedDashboard(db, "roles");
    const admin = as(other.users.admin.id);
    expect(await admin.member.changeRole({ organizationId: other.org.id, userId: other.users.viewer.id, role: "approver" })).toMatchObject({ from: "viewer", to: "approver" });
    expect((await as(other.users.viewer.id).run.byId({ runId: other.run.id })).role).toBe("approver");
    expect(await httpStatusOf(as(other.users.approver.id).member.changeRole({ organizationId: other.org.id, userId: other.users.viewer.id, role: "admin" }))).toBe(403);
  });

  it("the last admin can be neither demoted nor removed; with a second admin, they can", async () => {
    const other = await seedDashboard(db, "last-admin");
    const admin = as(other.users.admin.id);
    const organizationId = other.org.id;
    await expect(admin.member.changeRole({ organizationId, userId: other.users.admin.id, role: "viewer" })).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
      message: "the last admin cannot be made viewer: make another member admin first",
    });
    await expect(admin.member.remove({ organizationId, userId: other.users.admin.id })).rejects.toMatchObject({ message: expect.stringContaining("the last admin cannot be removed") });
    expect((await db.membership.findFirstOrThrow({ where: { organizationId, userId: other.users.admin.id } })).role).toBe("admin");

    await admin.member.changeRole({ organizationId, userId: other.users.approver.id, role: "admin" });
    expect(await admin.member.changeRole({ organizationId, userId: other.users.admin.id, role: "viewer" })).toMatchObject({ to: "viewer" });
  });

  it("a removed member loses the organization's runs, sessions and API keys", async () => {
    const other = await seedDashboard(db, "remove");
    const viewerId = other.users.viewer.id;
    const key = await as(viewerId).apiKey.create({ name: "laptop" });
    await db.session.create({ data: { userId: viewerId, token: `session-${viewerId}`, expiresAt: new Date(Date.now() + 3_600_000) } });
    expect(await as(other.users.admin.id).member.remove({ organizationId: other.org.id, userId: viewerId })).toEqual({ userId: viewerId, email: other.users.viewer.email });
    expect(await httpStatusOf(as(viewerId).run.byId({ runId: other.run.id }))).toBe(404);
    expect(await db.session.count({ where: { userId: viewerId } })).toBe(0);
    const keyed = harness.callerAs({ headers: new Headers({ authorization: `Bearer ${key.key}` }) });
    expect(await httpStatusOf(keyed.run.list())).toBe(401);
    await expect(as(other.users.admin.id).member.remove({ organizationId: other.org.id, userId: viewerId })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("password reset by link", () => {
  it("sets a new password once, signs the person out, and is refused after use or expiry", async () => {
    const approverId = seed.users.approver.id;
    await db.session.create({ data: { userId: approverId, token: `session-${approverId}`, expiresAt: new Date(Date.now() + 3_600_000) } });
    const reset = await as(seed.users.admin.id).member.createPasswordReset({ organizationId: orgId, userId: approverId });
    expect(reset.path).toMatch(/^\/reset-password\/evr_/);
    const token = tokenOf(reset.path);
    expect(await db.verification.count({ where: { value: approverId, identifier: { contains: token } } })).toBe(0);

    expect(await anonymous().member.passwordReset({ token })).toEqual({ email: seed.users.approver.email });
    // The web app forgets the account's wrong passwords through this hook; here it records whom it was told about.
    const lockoutsLifted: string[] = [];
    const resetter = harness.callerAs({ passwordGuard: { ...NO_PASSWORD_GUARD, passwordSet: async (email) => void lockoutsLifted.push(email) } });
    expect(await resetter.member.completePasswordReset({ token, password: "a brand new password" })).toEqual({ email: seed.users.approver.email });
    expect(lockoutsLifted).toEqual([seed.users.approver.email]);
    expect(await passwordWorks(approverId, "a brand new password")).toBe(true);
    expect(await db.session.count({ where: { userId: approverId } })).toBe(0);
    expect(await httpStatusOf(anonymous().member.completePasswordReset({ token, password: "yet another password" }))).toBe(401);
    expect(await passwordWorks(approverId, "a brand new password")).toBe(true);

    const late = await as(seed.users.admin.id).member.createPasswordReset({ organizationId: orgId, userId: approverId });
    await db.verification.updateMany({ where: { value: approverId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(anonymous().member.completePasswordReset({ token: tokenOf(late.path), password: "a long enough password" })).rejects.toMatchObject({ message: expect.stringContaining("expired") });
    expect(await httpStatusOf(as(seed.users.approver.id).member.createPasswordReset({ organizationId: orgId, userId: seed.users.viewer.id }))).toBe(403);
  });
});

// Issue 28: the admin of one organization took over an account of another with the invitation and
// password-reset links of their own organization. Each step of that chain is refused here.
describe("credentials stay with the person and the organizations they belong to", () => {
  it("an invitation adds an existing account only on its password or its own session; the lookup does not tell whether it exists", async () => {
    const victim = await seedDashboard(db, "victim-a");
    const attacker = await seedDashboard(db, "attacker-b");
    const attackerAdmin = as(attacker.users.admin.id);
    const victimEmail = victim.users.admin.email;
    const link = await attackerAdmin.member.invite({ organizationId: attacker.org.id, email: victimEmail, role: "viewer" });
    const token = tokenOf(link.path);
    const fresh = await attackerAdmin.member.invite({ organizationId: attacker.org.id, email: "nobody-yet@example.test", role: "viewer" });

    // The lookup answers alike for an email with an account and one without.
    const lookedUp = await attackerAdmin.member.invitation({ token });
    const lookedUpFresh = await attackerAdmin.member.invitation({ token: tokenOf(fresh.path) });
    expect(Object.keys(lookedUp).sort()).toEqual(Object.keys(lookedUpFresh).sort());
    expect(lookedUp.signedInAsInvitee).toBe(false);
    expect(lookedUpFresh.signedInAsInvitee).toBe(false);

    // Before: the link with any name and password added the account to B. Now: no session, no password, no join.
    await expect(anonymous().member.acceptInvitation({ token, name: "Mallory", password: "attacker's password" })).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: `To join with the account of ${victimEmail}, sign in as it first or type its current password.`,
    });
    await expect(attackerAdmin.member.acceptInvitation({ token, password: "attacker's password" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect(await db.membership.count({ where: { organizationId: attacker.org.id, userId: victim.users.admin.id } })).toBe(0);
    expect(await passwordWorks(victim.users.admin.id, SEED_PASSWORD)).toBe(true);

    // The owner joins with the current password (no name needed)...
    expect(await anonymous().member.acceptInvitation({ token, password: SEED_PASSWORD })).toMatchObject({ email: victimEmail, existingAccount: true });
    expect(await db.membership.count({ where: { organizationId: attacker.org.id, userId: victim.users.admin.id } })).toBe(1);
    // ...or signed in as the account, with nothing else.
    const second = await seedDashboard(db, "victim-c");
    const other = await as(second.users.admin.id).member.invite({ organizationId: second.org.id, email: victim.users.viewer.email, role: "approver" });
    expect((await as(victim.users.viewer.id).member.invitation({ token: tokenOf(other.path) })).signedInAsInvitee).toBe(true);
    expect(await as(victim.users.viewer.id).member.acceptInvitation({ token: tokenOf(other.path) })).toMatchObject({ role: "approver", existingAccount: true });

    // A new account still needs a name and a password, each refused as a sentence naming the field.
    await expect(anonymous().member.acceptInvitation({ token: tokenOf(fresh.path), password: "a long enough password" })).rejects.toMatchObject({ code: "BAD_REQUEST", message: "name: give your name to create your account." });
    await expect(anonymous().member.acceptInvitation({ token: tokenOf(fresh.path), name: "Fresh" })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^password: /) });
  });

  it("a stranger's wrong passwords through an invitation hold back only the stranger's client, and never count at sign-in (real Redis)", async () => {
    const victim = await seedDashboard(db, "victim-lock");
    const attacker = await seedDashboard(db, "attacker-lock");
    const email = victim.users.approver.email;
    const link = await as(attacker.users.admin.id).member.invite({ organizationId: attacker.org.id, email, role: "viewer" });
    const guard = redisPasswordGuard(async () => connection, prefix);
    const from = (address: string) => harness.callerAs({ passwordGuard: guard, headers: new Headers({ "x-forwarded-for": address }) });
    const stranger = "198.51.100.7";
    for (let i = 0; i < PASSWORD_LIMITS.perClient; i++) {
      await expect(from(stranger).member.acceptInvitation({ token: tokenOf(link.path), password: `guess ${i}!` })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    }
    // Before: the account itself was locked, so its owner's right password got 429 at sign-in.
    await expect(from(stranger).member.acceptInvitation({ token: tokenOf(link.path), password: SEED_PASSWORD })).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    for (const client of [stranger, "203.0.113.1"]) expect(await guard.waitSeconds(email, client, "sign-in")).toBe(0);
    // A client that has not failed may still prove the account here, and is then one the account knows.
    expect(await from("203.0.113.1").member.acceptInvitation({ token: tokenOf(link.path), password: SEED_PASSWORD })).toMatchObject({ existingAccount: true });
  });

  it("wrong passwords at sign-in spread over many clients: each unknown client meets the smaller allowance, the owner's clients none (real Redis)", async () => {
    const email = `spread-${prefix}@example.test`;
    const guard = redisPasswordGuard(async () => connection, prefix);
    await guard.recordSuccess(email, "203.0.113.1");
    for (let i = 0; i < 30; i++) await guard.recordFailure(email, `198.51.100.${i % 10}`, "sign-in");
    expect(await guard.waitSeconds(email, "198.51.100.3", "sign-in")).toBeGreaterThan(0);
    // The owner's device from before, and a new one that has never failed.
    expect(await guard.waitSeconds(email, "203.0.113.1", "sign-in")).toBe(0);
    expect(await guard.waitSeconds(email, "203.0.113.2", "sign-in")).toBe(0);
    // An IPv6 attacker cannot buy allowances by moving inside its /64.
    for (let i = 0; i < PASSWORD_LIMITS.perClientUnderAttack; i++) await guard.recordFailure(email, `2001:db8:0:1::${i + 1}`, "sign-in");
    expect(await guard.waitSeconds(email, "2001:db8:0:1::ffff", "sign-in")).toBeGreaterThan(0);
    await guard.passwordSet(email);
    expect(await guard.waitSeconds(email, "198.51.100.3", "sign-in")).toBe(0);
  });

  it("an organization admin cannot reset the password of someone who also belongs to an organization they do not administer; an installation admin can", async () => {
    const home = await seedDashboard(db, "home-a");
    const away = await seedDashboard(db, "away-b");
    // The person is a member of B too (joined with their own password), still an approver in A.
    await db.membership.create({ data: { organizationId: away.org.id, userId: home.users.approver.id, role: "viewer" } });
    await expect(as(away.users.admin.id).member.createPasswordReset({ organizationId: away.org.id, userId: home.users.approver.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: `${home.users.approver.email} also belongs to an organization you do not administer, so only an installation admin can reset their password.`,
    });
    expect(await db.verification.count({ where: { value: home.users.approver.id } })).toBe(0);
    // An admin of both organizations may.
    await db.membership.create({ data: { organizationId: home.org.id, userId: away.users.admin.id, role: "admin" } });
    expect((await as(away.users.admin.id).member.createPasswordReset({ organizationId: away.org.id, userId: home.users.approver.id })).email).toBe(home.users.approver.email);
    // An installation admin is one no organization admin can reset, even inside one organization.
    await db.user.update({ where: { id: home.users.viewer.id }, data: { role: "admin" } });
    await expect(as(home.users.admin.id).member.createPasswordReset({ organizationId: home.org.id, userId: home.users.viewer.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // The installation admin, administering the organization, resets someone who is also in one they do not.
    await db.membership.update({ where: { organizationId_userId: { organizationId: home.org.id, userId: home.users.viewer.id } }, data: { role: "admin" } });
    expect((await as(home.users.viewer.id).member.createPasswordReset({ organizationId: home.org.id, userId: home.users.approver.id })).email).toBe(home.users.approver.email);
  });

  it("a password reset ends the account's sessions and its API keys", async () => {
    const other = await seedDashboard(db, "reset-ends");
    const approverId = other.users.approver.id;
    const key = await as(approverId).apiKey.create({ name: "laptop" });
    // A caller per request, as the server makes one: a context resolves its principal once.
    const keyed = () => harness.callerAs({ headers: new Headers({ authorization: `Bearer ${key.key}` }) });
    expect(await httpStatusOf(keyed().run.list())).toBe(200);
    await db.session.create({ data: { userId: approverId, token: `session-reset-${approverId}`, expiresAt: new Date(Date.now() + 3_600_000) } });
    const reset = await as(other.users.admin.id).member.createPasswordReset({ organizationId: other.org.id, userId: approverId });
    await anonymous().member.completePasswordReset({ token: tokenOf(reset.path), password: "a brand new password" });
    expect(await db.session.count({ where: { userId: approverId } })).toBe(0);
    expect(await httpStatusOf(keyed().run.list())).toBe(401);
  });

  it("a removed member's share links are revoked, in that organization only", async () => {
    const other = await seedDashboard(db, "share-removed");
    const approverId = other.users.approver.id;
    const link = await as(approverId).shareLink.create({ runId: other.run.id });
    const shared = () => harness.callerAs({ shareToken: link.token });
    expect(await httpStatusOf(shared().run.byId({ runId: other.run.id }))).toBe(200);
    await as(other.users.admin.id).member.remove({ organizationId: other.org.id, userId: approverId });
    expect(await httpStatusOf(shared().run.byId({ runId: other.run.id }))).toBe(401);
    expect((await db.shareLink.findUniqueOrThrow({ where: { id: link.id } })).revokedAt).not.toBeNull();
  });
});

describe("organizations", () => {
  it("only an installation admin creates one, with its first admin's invitation link", async () => {
    const other = await seedDashboard(db, "org-maker");
    await expect(as(other.users.admin.id).organization.create({ name: "Team Two", adminEmail: "lead@example.test" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await db.user.update({ where: { id: other.users.viewer.id }, data: { role: "admin" } });
    const installer = as(other.users.viewer.id);
    const created = await installer.organization.create({ name: "Team Two", adminEmail: "Lead@Example.test" });
    expect(created.organization).toMatchObject({ name: "Team Two", slug: "team-two", members: 0 });
    expect(created.invitation).toMatchObject({ email: "lead@example.test", role: "admin" });
    await expect(installer.organization.create({ name: "Team two!" , adminEmail: "x@example.test" })).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/^slug: /) });
    await anonymous().member.acceptInvitation({ token: tokenOf(created.invitation.path), name: "Lead", password: "a long enough password" });
    const lead = await db.user.findUniqueOrThrow({ where: { email: "lead@example.test" } });
    expect((await as(lead.id).member.list({ organizationId: created.organization.id })).callerRole).toBe("admin");
    expect((await installer.organization.list()).map((o) => o.slug)).toContain("team-two");
    expect((await installer.viewer.me()).installationAdmin).toBe(true);
    expect((await as(lead.id).viewer.me()).installationAdmin).toBe(false);
  });
});

describe("decision guard rails", () => {
  it("refuses approving a failed verdict without the override and a reason, then records the override", async () => {
    const other = await seedDashboard(db, "override");
    const branchId = other.branches.v2.id; // awaiting a decision; its verdict failed main_score_vs_parent
    const approver = as(other.users.approver.id);
    await expect(approver.decision.approve({ branchId })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("main_score_vs_parent") });
    await expect(approver.decision.approve({ branchId, approveAnyway: true, reason: "  " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await db.decision.count({ where: { branchId } })).toBe(0);

    const approved = await approver.decision.approve({ branchId, approveAnyway: true, reason: "the drop is inside the noise floor" });
    expect(approved).toMatchObject({ alreadyDecided: false });
    const event = await db.event.findFirstOrThrow({ where: { branchId, type: "decision" } });
    expect(event.payload).toMatchObject({ kind: "approve", reason: "the drop is inside the noise floor", override: { kind: "failed_verdict", failedChecks: ["main_score_vs_parent"] } });
    expect(event.actor).toBe(`user:${other.users.approver.id}`);
  });

  it("a second identical decision answers already decided; a different one is a conflict", async () => {
    const other = await seedDashboard(db, "idempotent");
    const branchId = other.branches.v1.id;
    const first = await as(other.users.approver.id).decision.approve({ branchId, reason: "clean win" });
    const second = await as(other.users.admin.id).decision.approve({ branchId, reason: "clean win" });
    expect(second).toEqual({ decisionId: first.decisionId, status: "awaiting_decision", enqueued: false, alreadyDecided: true });
    expect(await httpStatusOf(as(other.users.admin.id).decision.veto({ branchId, reason: "no" }))).toBe(409);
    expect(await db.decision.count({ where: { branchId } })).toBe(1);
  });
});

describe("overriding the policy's veto", () => {
  it("needs an approver and a reason, records the override beside the veto and promotes the branch", async () => {
    const other = await seedDashboard(db, "veto-override");
    const branchId = other.branches.v3.id; // rejected by its gate
    const veto = await db.decision.create({ data: { branchId, stage: "completion", kind: "veto", actorType: "policy", reason: "validity_limit: test_tampering 0.052 over 0.05" } });

    expect(await httpStatusOf(as(other.users.viewer.id).decision.overrideVeto({ branchId, reason: "worth it" }))).toBe(403);
    await expect(as(other.users.approver.id).decision.overrideVeto({ branchId, reason: " " })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("needs a reason") });
    expect(await db.decision.count({ where: { branchId } })).toBe(1);

    const result = await as(other.users.approver.id).decision.overrideVeto({ branchId, reason: "+0.668 over the parent; 0.002 over the limit is noise" });
    expect(result).toMatchObject({ status: "promoted", alreadyDecided: false });
    expect((await db.branch.findUniqueOrThrow({ where: { id: branchId } })).status).toBe("promoted");
    const event = await db.event.findFirstOrThrow({ where: { branchId, type: "decision" } });
    expect(event).toMatchObject({
      actor: `user:${other.users.approver.id}`,
      payload: { kind: "approve", from: "rejected", to: "promoted", reason: "+0.668 over the parent; 0.002 over the limit is noise", override: { kind: "policy_veto", overriddenDecisionId: veto.id, failedChecks: ["main_score_vs_parent"] } },
    });

    // A second click answers that it stands; a person's veto is not open to an override.
    expect(await as(other.users.admin.id).decision.overrideVeto({ branchId, reason: "again" })).toMatchObject({ alreadyDecided: true });
    expect(await db.decision.count({ where: { branchId } })).toBe(2);
    await db.decision.create({ data: { branchId: other.branches.v2.id, stage: "completion", kind: "veto", actorType: "human", userId: other.users.admin.id, reason: "no" } });
    await db.branch.update({ where: { id: other.branches.v2.id }, data: { status: "vetoed" } });
    await expect(as(other.users.admin.id).decision.overrideVeto({ branchId: other.branches.v2.id, reason: "changed my mind" })).rejects.toMatchObject({ code: "PRECONDITION_FAILED" });
  });
});

describe("evotrainer users", () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, "users", ...args], {
      env: { ...process.env, DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_API_KEY: apiKey, BETTER_AUTH_URL: "http://evo.example.test:3104" },
      encoding: "utf8",
    });
  let apiKey: string;
  let slug: string;
  let other: Awaited<ReturnType<typeof seedDashboard>>;

  beforeAll(async () => {
    other = await seedDashboard(db, "cli-users");
    slug = other.org.slug;
    apiKey = (await as(other.users.admin.id).apiKey.create({ name: "cli" })).key;
  });

  it("invites, lists, changes a role, resets a password and removes, with the API's guards", async () => {
    const invited = cli("invite", "cli.person@example.test", "--role", "approver", "--org", slug);
    expect(invited.status, invited.stderr).toBe(0);
    const link = invited.stdout.match(/http:\/\/evo\.example\.test:3104\/invite\/(evi_\S+)/);
    expect(link).not.toBeNull();
    await anonymous().member.acceptInvitation({ token: link![1]!, name: "Cli Person", password: "a long enough password" });

    const listed = cli("list", "--json", "--org", slug);
    expect(listed.status, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { members: { email: string; role: string }[] }).members).toContainEqual(expect.objectContaining({ email: "cli.person@example.test", role: "approver" }));

    expect(cli("role", "cli.person@example.test", "viewer", "--org", slug).stdout).toContain("approver → viewer");
    expect(cli("reset-password", "cli.person@example.test", "--org", slug).stdout).toMatch(/\/reset-password\/evr_/);
    expect(cli("remove", "cli.person@example.test", "--org", slug).stdout).toContain("removed");

    const nobody = cli("role", "nobody@example.test", "admin", "--org", slug);
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain("nobody@example.test is not a member");
    const badRole = cli("invite", "x@example.test", "--role", "owner", "--org", slug);
    expect(badRole.stderr).toContain('the role must be viewer, approver or admin, not "owner"');
    // Seven CLI processes: a hang bound for a busy machine, not an expectation of speed.
  }, 600_000);

  it("decide approves a failed verdict only with --anyway and a note", async () => {
    const decide = (...args: string[]) => spawnSync(process.execPath, [CLI, "decide", other.branches.v2.id, "approve", ...args], {
      env: { ...process.env, DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_API_KEY: apiKey },
      encoding: "utf8",
    });
    const plain = decide();
    expect(plain.status).toBe(1);
    expect(plain.stderr).toContain('main_score_vs_parent; to approve anyway, confirm the override and give the reason (from the CLI: --anyway --note "why")');
    expect(await db.decision.count({ where: { branchId: other.branches.v2.id } })).toBe(0);
    const anyway = decide("--anyway", "--note", "inside the noise floor");
    expect(anyway.status, anyway.stderr).toBe(0);
    expect(await db.decision.findFirstOrThrow({ where: { branchId: other.branches.v2.id } })).toMatchObject({ kind: "approve", reason: "inside the noise floor" });
  }, 600_000);
});
