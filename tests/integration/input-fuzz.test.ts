// Issue 28: a NUL byte, an unpaired surrogate or a 100 KB string in any string input of any tRPC
// procedure answered 500. This sends each of them in every string field of every procedure, found by
// walking the router's own input schemas (a procedure added later is covered without editing this
// file), through tRPC's real fetch handler over a real database, and asserts a 400 naming the field.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createContext } from "@evotrainer/api";
import { apiHarness } from "../support/api-harness.ts";
import { seedDashboard } from "../support/dashboard-seed.ts";

const redisUrl = inject("redisUrl");
const harness = await apiHarness(inject("databaseUrl"), redisUrl);
const { db, connection, producer } = harness;

type ZodLike = { _zod: { def: Record<string, unknown> & { type: string } } };

/** Dotted paths of every string field a schema takes ("lines.0.text" for an array's element). */
function stringPaths(schema: ZodLike, prefix: string[] = [], depth = 0): string[][] {
  if (depth > 12) return [];
  const def = schema._zod.def;
  const inner = (key: string) => def[key] as ZodLike;
  switch (def.type) {
    case "string":
      return [prefix];
    case "object":
      return Object.entries(def.shape as Record<string, ZodLike>).flatMap(([key, field]) => stringPaths(field, [...prefix, key], depth + 1));
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return stringPaths(inner("innerType"), prefix, depth + 1);
    case "pipe":
      return stringPaths(inner("in"), prefix, depth + 1);
    case "array":
      return stringPaths(inner("element"), [...prefix, "0"], depth + 1);
    case "record":
      return stringPaths(inner("valueType"), [...prefix, "key"], depth + 1);
    case "union":
      return (def.options as ZodLike[]).flatMap((option) => stringPaths(option, prefix, depth + 1));
    case "intersection":
      return [...stringPaths(inner("left"), prefix, depth + 1), ...stringPaths(inner("right"), prefix, depth + 1)];
    default:
      return [];
  }
}

/** An input with `value` at `path` and nothing else: the guard must answer before any other field is read. */
function inputAt(path: string[], value: string): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  return head === "0" ? [inputAt(rest, value)] : { [head!]: inputAt(rest, value) };
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: "query" | "mutation"; inputs: ZodLike[] } }>);
const cases = procedures.flatMap(([name, procedure]) => {
  const paths = procedure._def.inputs.flatMap((schema) => stringPaths(schema));
  // A procedure without string fields still gets a string where its input goes.
  const unique = [...new Map((paths.length > 0 ? paths : [[]]).map((p) => [p.join("."), p])).values()];
  return unique.map((path) => ({ name, type: procedure._def.type, path }));
});

const BAD = {
  nul: "abc\u0000def",
  "unpaired surrogate": "abc\uD800def",
  "100 KB": "x".repeat(100 * 1024),
};

let adminId = "";
let organizationId = "";

async function send(procedure: string, type: "query" | "mutation", input: unknown): Promise<{ status: number; message: string }> {
  const payload = JSON.stringify(superjson.serialize(input));
  const url = `http://evotrainer.test/api/trpc/${procedure}`;
  const req =
    type === "query"
      ? new Request(`${url}?input=${encodeURIComponent(payload)}`)
      : new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body: payload });
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    router: appRouter,
    req,
    createContext: () => createContext({ db, headers: req.headers, producer: () => producer, sessionUserId: async () => adminId }),
  });
  const body = (await response.json()) as { error?: { json?: { message?: string } } };
  return { status: response.status, message: body.error?.json?.message ?? "" };
}

beforeAll(async () => {
  await connection.connect();
  const seed = await seedDashboard(db, "input-fuzz");
  adminId = seed.users.admin.id;
  organizationId = seed.org.id;
});

afterAll(async () => {
  await harness.close();
});

describe("every string field of every procedure, signed in as an admin", () => {
  it("finds the procedures and their string fields", () => {
    expect(procedures.length).toBeGreaterThan(40);
    const fields = cases.map((c) => `${c.name}:${c.path.join(".")}`);
    for (const expected of ["run.list:q", "branch.byId:branchId", "apiKey.create:name", "notification.createWebhook:name", "decision.veto:reason", "import.append:lines.0.text"]) {
      expect(fields).toContain(expected);
    }
  });

  for (const [kind, value] of Object.entries(BAD)) {
    it.each(cases)(`${kind}: %o answers 400 naming the field, never 500`, async ({ name, type, path }) => {
      const answer = await send(name, type, inputAt(path, value));
      expect(answer.status, `${name} ${path.join(".")}: ${answer.message}`).not.toBe(500);
      expect(answer.status, `${name} ${path.join(".")}: ${answer.message}`).toBe(400);
      // Import lines are stored as they were read (a NUL is the ingest reader's to quarantine): the schema refuses the rest of that input.
      if (name === "import.append" && path.join(".") === "lines.0.text") return;
      expect(answer.message).toContain(path.length > 0 ? `${path.join(".")}:` : "input:");
      expect(answer.message).not.toMatch(/^\s*[[{]/);
    });
  }
});

describe("messages people read", () => {
  it("a schema's refusal is a sentence naming the field, not zod's JSON", async () => {
    const answer = await send("member.invite", "mutation", { organizationId, email: "not an email", role: "viewer" });
    expect(answer.status).toBe(400);
    expect(answer.message).toBe("email: give the invitee's email address.");
    const missing = await send("apiKey.create", "mutation", {});
    expect(missing.status).toBe(400);
    expect(missing.message).toMatch(/^name: .+\.$/);
  });

  it("a name with a control character is refused at the boundary, naming the field, and nothing is stored", async () => {
    const escape = "team \u001b[2J\u001b[31mred";
    const names: [string, unknown, string][] = [
      ["organization.create", { name: escape, adminEmail: "ctl@example.com" }, "name"],
      ["apiKey.create", { name: escape }, "name"],
      ["labelReview.submit", { rolloutId: "1", label: "trunc\u0007ated", holds: true }, "label"],
    ];
    // Organizations are the installation admin's to create: the seed's admin is one for this check.
    const before = await db.user.findUniqueOrThrow({ where: { id: adminId }, select: { role: true } });
    await db.user.update({ where: { id: adminId }, data: { role: "admin" } });
    try {
      for (const [procedure, input, field] of names) {
        const answer = await send(procedure, "mutation", input);
        expect(answer.status, procedure).toBe(400);
        expect(answer.message, procedure).toBe(`${field}: contains a control character (such as an escape or a carriage return); use printable text only.`);
      }
    } finally {
      await db.user.update({ where: { id: adminId }, data: { role: before.role } });
    }
    expect(await db.organization.count({ where: { name: { contains: "\u001b" } } })).toBe(0);
    expect(await db.apiKey.count({ where: { name: { contains: "\u001b" } } })).toBe(0);
  });
});
