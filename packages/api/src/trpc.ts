import { randomUUID } from "node:crypto";
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import type { Database, Role } from "@evotrainer/db";
import type { IngestPool } from "@evotrainer/db/ingest";
import type { AskWaits, Producer } from "@evotrainer/queue";
import { NO_PASSWORD_GUARD, type PasswordGuard } from "./auth/password-guard.ts";
import type { Principal } from "./auth/principal.ts";
import { resolvePrincipal } from "./auth/resolve-principal.ts";
import { badString, type RawTextFields } from "./input/bad-string.ts";
import { zodSentence } from "./input/zod-sentence.ts";
import { sha256Hex } from "./auth/secret-token.ts";

export interface ContextDeps {
  db: Database;
  headers: Headers;
  /** The browser session's user, as the auth library reads it from the cookies. */
  sessionUserId: (headers: Headers) => Promise<string | null>;
  /** Created on first use: most requests never enqueue, and Redis being away must not fail reads. */
  producer: () => Producer;
  /** Share pages render on the server with the token from their URL rather than a header. */
  shareToken?: string | null;
  /** Names this request in the server log and in a 5xx answer; generated when the caller has none. */
  requestId?: string;
  /** Postgres connections for COPY, created on first use: only imports over HTTP need them. */
  ingestPool?: () => IngestPool;
  /** The web app's hold on clients that send wrong passwords, for passwords checked here (joining with an existing account, a reset). */
  passwordGuard?: PasswordGuard;
  /** How long run.create waits for a worker to check a run's trainer arguments (EVO_TRAINER_CHECK_PICKUP_S). */
  trainerArgsWaits?: AskWaits;
}

export interface Context {
  requestId: string;
  db: Database;
  producer: () => Producer;
  principal: () => Promise<Principal | null>;
  passwordGuard: PasswordGuard;
  /** The caller's IP address, as the web server put it in X-Forwarded-For; empty outside the web app. */
  clientAddress: string;
  ingestPool?: () => IngestPool;
  trainerArgsWaits?: AskWaits;
}

/** Builds the per-request context. The web app calls it from the route handler and from RSC. */
export function createContext(deps: ContextDeps): Context {
  let principal: Promise<Principal | null> | undefined;
  return {
    requestId: deps.requestId ?? randomUUID(),
    db: deps.db,
    producer: deps.producer,
    passwordGuard: deps.passwordGuard ?? NO_PASSWORD_GUARD,
    clientAddress: deps.headers.get("x-forwarded-for") ?? "",
    ...(deps.ingestPool ? { ingestPool: deps.ingestPool } : {}),
    ...(deps.trainerArgsWaits ? { trainerArgsWaits: deps.trainerArgsWaits } : {}),
    principal: () =>
      (principal ??= resolvePrincipal({ db: deps.db, headers: deps.headers, shareToken: deps.shareToken ?? null, sessionUserId: deps.sessionUserId })),
  };
}

/** What a procedure may declare about itself. */
export interface ProcedureMeta {
  /** Fields taken as they came, past the input guard's default bound (import batches carry files' lines). */
  rawText?: RawTextFields;
}

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    transformer: superjson,
    errorFormatter: ({ shape, error, ctx }) => {
      // A 5xx says nothing of its cause (database errors quote queries and values); the request id
      // finds the details in the server log.
      if (shape.data.httpStatus >= 500) {
        const { stack: _stack, ...data } = shape.data;
        return { ...shape, message: `internal error (request id ${ctx?.requestId ?? "unknown"})`, data: { ...data, zodError: null } };
      }
      // tRPC's own message for a failed input is zod's issues as JSON; people read a sentence naming the field.
      if (error.cause instanceof ZodError) return { ...shape, message: zodSentence(error.cause), data: { ...shape.data, zodError: z.flattenError(error.cause) } };
      return { ...shape, data: { ...shape.data, zodError: null } };
    },
  });

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure's raw input passes here before its schema: a string a database or a page cannot
 * take (NUL, an unpaired surrogate, a length past any field's need) is a 400 naming the field.
 */
const guardedProcedure = t.procedure.use(async ({ meta, getRawInput, next }) => {
  const problem = badString(await getRawInput(), meta?.rawText);
  if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: problem });
  return next();
});
const ROLE_RANK: Record<Role, number> = { viewer: 0, approver: 1, admin: 2 };

export function roleAtLeast(role: Role | null, needed: Role): boolean {
  return role !== null && ROLE_RANK[role] >= ROLE_RANK[needed];
}

/**
 * The caller's role in the organization that owns a run; NOT_FOUND when they may not see it at all.
 * `what` names the thing asked for (a rollout, a share link…): a missing one and one in another
 * organization answer alike, so an id's existence elsewhere is never told.
 */
export async function accessRun(ctx: { db: Database; principal: Principal }, runId: string, what = "run"): Promise<{ role: Role | null; organizationId: string }> {
  const unseen = new TRPCError({ code: "NOT_FOUND", message: `${what} not found` });
  const run = await ctx.db.run.findUnique({ where: { id: runId }, select: { organizationId: true } });
  if (!run) throw unseen;
  if (ctx.principal.kind === "share") {
    if (ctx.principal.runId !== runId) throw unseen;
    return { role: null, organizationId: run.organizationId };
  }
  const membership = await ctx.db.membership.findUnique({
    where: { organizationId_userId: { organizationId: run.organizationId, userId: ctx.principal.userId } },
    select: { role: true },
  });
  if (!membership) throw unseen;
  return { role: membership.role, organizationId: run.organizationId };
}

/** Like accessRun, and FORBIDDEN below the role. */
export async function requireRunRole(ctx: { db: Database; principal: Principal }, runId: string, needed: Role, what = "run"): Promise<Role> {
  const { role } = await accessRun(ctx, runId, what);
  if (!roleAtLeast(role, needed)) throw new TRPCError({ code: "FORBIDDEN", message: `needs the ${needed} role in this run's organization` });
  return role!;
}

export async function runIdOfBranch(db: Database, branchId: string): Promise<string> {
  const branch = await db.branch.findUnique({ where: { id: branchId }, select: { runId: true } });
  if (!branch) throw new TRPCError({ code: "NOT_FOUND", message: "branch not found" });
  return branch.runId;
}

/** accessRun for the run of a branch; a missing branch and one out of sight answer alike. */
export async function accessBranch(ctx: { db: Database; principal: Principal }, branchId: string): Promise<{ runId: string; role: Role | null; organizationId: string }> {
  const runId = await runIdOfBranch(ctx.db, branchId);
  return { runId, ...(await accessRun(ctx, runId, "branch")) };
}

/**
 * Any credential: session, API key or share token. Procedures on this base must be read-only
 * and must check the run they touch with accessRun, which confines a share token to its run.
 */
export const protectedProcedure = guardedProcedure.use(async ({ ctx, next }) => {
  const principal = await ctx.principal();
  if (!principal) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in, or send an API key or a share token" });
  return next({ ctx: { ...ctx, principal } });
});

/** A person (session or API key); share tokens are refused. */
export const userProcedure = protectedProcedure.use(({ ctx, next }) => {
  const { principal } = ctx;
  if (principal.kind !== "user") throw new TRPCError({ code: "FORBIDDEN", message: "a share link only reads its run" });
  return next({ ctx: { ...ctx, principal, userId: principal.userId } });
});

/** The caller's role in an organization; NOT_FOUND when they are not a member (nothing to see there). */
export async function requireOrganizationRole(ctx: { db: Database; userId: string }, organizationId: string, needed: Role): Promise<Role> {
  const membership = await ctx.db.membership.findUnique({ where: { organizationId_userId: { organizationId, userId: ctx.userId } }, select: { role: true } });
  if (!membership) throw new TRPCError({ code: "NOT_FOUND", message: "organization not found" });
  if (!roleAtLeast(membership.role, needed)) throw new TRPCError({ code: "FORBIDDEN", message: `needs the ${needed} role in this organization` });
  return membership.role;
}

/** Members of one organization: admin only. */
export const organizationAdminProcedure = userProcedure.input(z.object({ organizationId: z.string().min(1) })).use(async ({ ctx, input, next }) => {
  await requireOrganizationRole(ctx, input.organizationId, "admin");
  return next({ ctx: { ...ctx, organizationId: input.organizationId } });
});

/**
 * An invitation or password-reset link: the link's token is the credential (its owner has no
 * session yet, or has forgotten their password). The token is checked before any other input is read,
 * so a missing or dead token answers 401 like any other missing credential.
 */
export function linkProcedure(check: (db: Database, tokenHash: string) => Promise<{ outcome: "valid" } | { outcome: "refused"; message: string }>) {
  return guardedProcedure.input(z.object({ token: z.string().max(200).default("") })).use(async ({ ctx, input, next }) => {
    const tokenHash = sha256Hex(input.token);
    const found = input.token ? await check(ctx.db, tokenHash) : { outcome: "refused" as const, message: "this link has no token: open the whole link an admin gave you" };
    if (found.outcome === "refused") throw new TRPCError({ code: "UNAUTHORIZED", message: found.message });
    return next({ ctx: { ...ctx, tokenHash } });
  });
}

/** Decisions on one branch: approver or admin in the organization of the branch's run. */
export const approverProcedure = userProcedure.input(z.object({ branchId: z.string().min(1) })).use(async ({ ctx, input, next }) => {
  const runId = await runIdOfBranch(ctx.db, input.branchId);
  await requireRunRole(ctx, runId, "approver", "branch");
  return next({ ctx: { ...ctx, runId } });
});
