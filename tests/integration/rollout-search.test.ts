import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createContext, createLocalUser } from "@evotrainer/api";
import { sha256Hex } from "@evotrainer/core";
import { indexBranchSearch, indexSearchBatch, PrismaClient, TEXT_CAP, type Prisma } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { createProducerConnection, createWorkerConnection, Producer, QueueName } from "@evotrainer/queue";
import { indexSearch } from "../../apps/worker/src/search/index-search.ts";
import { WorkerRegistry } from "../../apps/worker/src/registry.ts";
import { sweepSearch } from "../../apps/worker/src/search/sweep-search.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";

const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const connect = () => new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
const db = connect();
const sql = new pg.Pool({ connectionString: database.url, max: 4 });

const org = await db.organization.create({ data: { name: "search", slug: "search" } });
const user = await createLocalUser(db, { email: "search@example.test", name: "Search", password: "a long enough password 1", organizationId: org.id, role: "viewer" });
const recipe = await db.recipe.create({ data: { hash: "search", canonical: "{}" } });
const run = await db.run.create({ data: { organizationId: org.id, name: "search", domain: "math", basePolicy: "b", settings: {}, evaluationProtocol: {}, autonomyPolicy: {}, budget: {} } });
const detector = await db.detector.create({ data: { key: "search.flag", label: "flag", version: 1, domains: ["math"], cel: "true", description: "search", testCases: {} } });
let versions = 0;
const branch = (id: string) => db.branch.create({ data: { id, runId: run.id, version: versions++, round: 0, recipeId: recipe.id } });

// Text with words common and rare, mixed case, LIKE's wildcards, missing fields, and responses past
// the text cap whose only mention of a word sits in the middle, where the capped text has none.
const WORDS = ["alpha", "Beta", "gamma", "DELTA", "answer", "zebra", "quokka", "50%", "snake_case", "path\\to"];
async function seed(branchId: string, from: number, count: number) {
  await sql.query(
    `INSERT INTO "Rollout" ("runId", "branchId", split, step, "taskId", "groupId", sample, reward, "responseTokens", turns, uid, prompt, response)
     SELECT $1, $2, (ARRAY['train','promotion','sealed'])[1 + i % 3]::"Split", i % 7, (CASE WHEN i % 2 = 0 THEN 'Task-' ELSE 'task-' END) || (i % 13), 'g' || i, 0, (i % 10) / 10.0, 10, 1, 'u' || i,
            CASE WHEN i % 11 = 0 THEN NULL ELSE 'Prompt ' || ($3::text[])[1 + i % 10] || ' number ' || i END,
            CASE WHEN i % 97 = 0 THEN repeat('x', ${TEXT_CAP}) || ' needle ' || repeat('y', ${TEXT_CAP})
                 WHEN i % 5 = 0 THEN NULL
                 ELSE 'The ' || ($3::text[])[1 + (i * 7) % 10] || ' is ' || (CASE WHEN i % 50 = 1 THEN 'ZEBRA' ELSE 'plain' END) END
       FROM generate_series($4::int, $5::int) AS i`,
    [run.id, branchId, WORDS, from, from + count - 1],
  );
  await sql.query(
    `INSERT INTO "RolloutLabel" ("rolloutId", "branchId", split, step, label, "detectorId", evidence)
     SELECT id, "branchId", split, step, 'flag', $2, '{}'::jsonb FROM "Rollout" WHERE "branchId" = $1 AND sample = 0 AND id % 4 = 0 AND id NOT IN (SELECT "rolloutId" FROM "RolloutLabel")`,
    [branchId, detector.id],
  );
}

const producer = () => {
  throw new Error("no queue here");
};
const member = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), sessionUserId: async () => user.id, producer }));
await db.shareLink.create({ data: { runId: run.id, tokenHash: sha256Hex("search share token"), createdById: user.id } });
const shared = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), shareToken: "search share token", sessionUserId: async () => null, producer }));

/**
 * What the explorer's text filter means, computed without LIKE: the rollouts whose taskId holds the
 * text, or whose prompt or response holds it case-insensitively. `%`, `_` and `\\` are characters here.
 */
const containing = async (q: string): Promise<Prisma.RolloutWhereInput> => {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT id::text FROM "Rollout" WHERE strpos("taskId", $1) > 0 OR strpos(lower(prompt), lower($1)) > 0 OR strpos(lower(response), lower($1)) > 0`,
    [q],
  );
  return { id: { in: rows.map((r) => BigInt(r.id)) } };
};

/** Each rollout of the branch beside its RolloutSearch row (null where it has none). */
async function indexedRows(branchId: string) {
  const { rows } = await sql.query<{ id: string; indexed: Record<string, unknown> | null; expected: Record<string, unknown> }>(
    `SELECT r.id::text, to_jsonb(s) - 'rolloutId' - 'branchId' AS indexed,
            jsonb_build_object('split', r.split, 'step', r.step, 'taskId', r."taskId", 'prompt', lower(r.prompt), 'response', lower(r.response)) AS expected
       FROM "Rollout" r LEFT JOIN "RolloutSearch" s ON s."rolloutId" = r.id WHERE r."branchId" = $1 ORDER BY r.id`,
    [branchId],
  );
  return rows;
}

/** What the indexer stores of a text: the whole of it, or its head and tail past the cap. */
const capped = (text: unknown) => (typeof text === "string" && text.length > TEXT_CAP ? `${text.slice(0, TEXT_CAP / 2)}\n${text.slice(-TEXT_CAP / 2)}` : text);

const progressOf = async (branchId: string) => (await db.rolloutSearchProgress.findUniqueOrThrow({ where: { branchId } })).indexedThrough;

describe("the rollouts explorer's text search", () => {
  afterAll(async () => {
    await sql.end();
    await db.$disconnect();
    await database.drop();
  });

  it("finds what the ILIKE over the rollouts found, for rows indexed and not yet indexed, with every filter, to a member and a share link", { timeout: 120_000 }, async () => {
    await branch("mixed");
    await seed("mixed", 1, 1_500);
    // Part of the branch indexed, the rest (and rows written after) above its progress.
    expect((await indexSearchBatch(db, "mixed", 1_000)).caughtUp).toBe(false);
    await seed("mixed", 1_501, 500);
    const through = await progressOf("mixed");
    const count = (where: Prisma.RolloutWhereInput) => db.rollout.count({ where: { branchId: "mixed", ...where } });
    expect(await count({ id: { lte: through } })).toBe(1_000);
    expect(await count({ id: { gt: through } })).toBe(1_000);

    // LIKE's wildcards are searched as characters: "%" finds the rows holding one, not every row.
    const terms = ["zebra", "ZEBRA", "answer", "Task-3", "needle", "50%", "%", "e_c", "_", "path\\to", "\\", "Prompt beta number 1"];
    const filters = [{}, { split: "train" as const }, { step: 3 }, { label: "flag" }, { rewardMin: 0.2, rewardMax: 0.6 }, { split: "promotion" as const, step: 2, label: "flag" }];
    let compared = 0;
    for (const [reader, api] of [["member", member], ["share link", shared]] as const) {
      for (const q of terms) {
        for (const filter of filters) {
          const found: string[] = [];
          let cursor: string | undefined;
          do {
            const page = await api.rollout.list({ branchId: "mixed", q, ...filter, limit: 100, ...(cursor ? { cursor } : {}) });
            found.push(...page.items.map((r) => String(r.id)));
            cursor = page.nextCursor ?? undefined;
          } while (cursor);
          const expected = await db.rollout.findMany({
            where: {
              AND: [
                { branchId: "mixed", ...(await containing(q)) },
                filter.split ? { split: filter.split } : {},
                "step" in filter ? { step: filter.step } : {},
                "rewardMin" in filter ? { reward: { gte: filter.rewardMin, lte: filter.rewardMax } } : {},
                filter.label ? { labels: { some: { label: filter.label } } } : {},
                reader === "share link" ? { split: { not: "sealed" } } : {},
              ],
            },
            orderBy: { id: "asc" },
            select: { id: true },
          });
          expect(found, `${q} ${JSON.stringify(filter)} (${reader})`).toEqual(expected.map((r) => String(r.id)));
          compared += found.length;
        }
      }
    }
    // The terms matched rows on both sides of the progress, and in the middle of capped texts.
    expect(compared).toBeGreaterThan(2_000);
    for (const q of ["zebra", "needle"]) {
      const ids = (await db.rollout.findMany({ where: { branchId: "mixed", ...(await containing(q)) }, select: { id: true } })).map((r) => r.id);
      expect(ids.some((id) => id <= through) && ids.some((id) => id > through), q).toBe(true);
    }
    expect(await db.rolloutSearch.count({ where: { branchId: "mixed", complete: false } })).toBeGreaterThan(0);
  });

  it("resumes after an indexer is killed mid-batch, and two indexers together leave each rollout once, with no gap", { timeout: 60_000 }, async () => {
    await branch("killed");
    await seed("killed", 1, 1_000);
    await indexSearchBatch(db, "killed", 300);
    const ids = (await db.rollout.findMany({ where: { branchId: "killed" }, orderBy: { id: "asc" }, select: { id: true } })).map((r) => r.id);
    // The next batch's middle row, indexed by someone else and not committed: the next batch waits on it.
    const blocker = await sql.connect();
    const victim = connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(`INSERT INTO "RolloutSearch" ("rolloutId", "branchId", split, step, "taskId", complete) VALUES ($1, 'killed', 'train', 0, 'blocker', true)`, [String(ids[450])]);
      const killed = indexSearchBatch(victim, "killed", 300);
      killed.catch(() => {});
      const pid = await until("the indexer waiting inside its batch", async () => {
        const { rows } = await sql.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO "RolloutSearch"%'`,
        );
        return rows[0]?.pid;
      });
      await sql.query("SELECT pg_terminate_backend($1)", [pid]);
      await expect(killed).rejects.toThrow();
      await blocker.query("ROLLBACK");
    } finally {
      // Discarded, not pooled: it may end here inside its transaction.
      blocker.release(true);
      await victim.$disconnect();
    }
    expect(await progressOf("killed")).toBe(ids[299]);
    expect(await db.rolloutSearch.count({ where: { branchId: "killed" } })).toBe(300);

    await seed("killed", 1_001, 500);
    const other = connect();
    try {
      await Promise.all([indexBranchSearch(db, "killed", 200), indexBranchSearch(other, "killed", 200)]);
    } finally {
      await other.$disconnect();
    }
    const rows = await indexedRows("killed");
    expect(rows).toHaveLength(1_500);
    for (const { indexed, expected } of rows) {
      const { prompt, response } = expected as { prompt: string | null; response: string | null };
      expect(indexed).toEqual({ ...expected, prompt: capped(prompt), response: capped(response), complete: capped(prompt) === prompt && capped(response) === response });
    }
    expect(rows.filter((r) => r.indexed?.complete === false).length).toBeGreaterThan(0);
    expect(await progressOf("killed")).toBe(BigInt(rows.at(-1)!.id));
  });

  it("does not pass a rollout whose transaction commits after later ids did", { timeout: 60_000 }, async () => {
    await branch("late");
    const writer = await sql.connect();
    try {
      await writer.query("BEGIN");
      await writer.query(
        `INSERT INTO "Rollout" ("runId", "branchId", split, step, "taskId", "groupId", sample, reward, "responseTokens", uid, response) VALUES ($1, 'late', 'train', 0, 't', 'g', 0, 0, 1, 'late', 'a late kangaroo')`,
        [run.id],
      );
      await seed("late", 1, 100);
      await indexBranchSearch(db, "late");
      const { rows } = await writer.query<{ id: string }>(`SELECT id::text FROM "Rollout" WHERE uid = 'late' AND "branchId" = 'late'`);
      // The rows committed after it are searchable all the same, through the scan above the progress.
      expect(await progressOf("late")).toBeLessThan(BigInt(rows[0]!.id));
      expect((await member.rollout.list({ branchId: "late", q: "zebra" })).items.length).toBeGreaterThan(0);
      await writer.query("COMMIT");
    } finally {
      writer.release(true);
    }
    // Once its writer has ended, the next run goes past it.
    await indexBranchSearch(db, "late");
    expect((await indexedRows("late")).filter((r) => r.indexed === null)).toEqual([]);
    expect((await member.rollout.list({ branchId: "late", q: "KANGAROO" })).items).toHaveLength(1);
  });

  it("indexes a branch through the search queue, and the reconcile sweep finds branches it has not reached", { timeout: 60_000 }, async () => {
    await branch("queued");
    await seed("queued", 1, 200);
    const prefix = testPrefix();
    const connection = createProducerConnection(redisUrl);
    await connection.connect();
    const queueProducer = new Producer(connection, prefix);
    const registry = new WorkerRegistry(createWorkerConnection(redisUrl), prefix, () => {});
    try {
      const lagging = await sweepSearch(db, queueProducer);
      expect(lagging).toBeGreaterThanOrEqual(1);
      const done = until("the queued branch indexed", async () => (await db.rolloutSearchProgress.findUnique({ where: { branchId: "queued" } }))?.indexedThrough);
      registry.register(QueueName.Search, async (job) => indexSearch(db, job.data as { branchId: string }), 1);
      await done;
      expect((await indexedRows("queued")).filter((r) => r.indexed === null)).toEqual([]);
      await until("no branch lagging", async () => (await sweepSearch(db, queueProducer)) === 0 || null);
    } finally {
      await registry.close();
      await queueProducer.close();
      connection.disconnect();
      await deleteKeys(redisUrl, `${prefix}:*`);
    }
  });
});
