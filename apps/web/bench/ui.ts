// npm run bench -w @evotrainer/web — the dashboard at scale: a run of 2,000 branches and a branch of
// 1,000,000 rollouts. Prints the run page's time to interactive in Chromium, the rollouts query's
// p50/p95 and the label-aggregate query's latency, each next to a baseline measured in this run.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import { parse } from "yaml";
import { appRouter, createContext, createLocalUser } from "@evotrainer/api";
import { runConfigSchema, sha256Hex } from "@evotrainer/core";
import { createDatabase, indexBranchSearch, json, storeRecipe } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { rolloutFilterCombinations } from "../../../tests/support/rollout-filters.ts";

const BRANCHES = 2_000;
const ROLLOUTS = Number(process.env.BENCH_ROLLOUTS ?? 1_000_000);
const PORT = 3298;
const root = fileURLToPath(new URL("../../..", import.meta.url));
const webDir = fileURLToPath(new URL("..", import.meta.url));
const password = "bench password 1234";

// Each round times every combination's first and next page: 20 rounds give 40 timings, so a p95 is
// not simply the slowest one.
const QUERY_ROUNDS = Number(process.env.EVO_BENCH_QUERY_ROUNDS ?? 20);
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const database = await createTestDatabase();
const db = createDatabase(database.url);
const server = { kill: () => {} } as { kill: () => void };
try {
  if (!existsSync(`${webDir}/.next/BUILD_ID`)) throw new Error("build the dashboard first: npm run build -w @evotrainer/web (or run the quickstart once)");
  const config = runConfigSchema.parse({ ...(parse(readFileSync(`${root}/examples/gym-math.yaml`, "utf8")) as object), name: "bench" });
  const org = await db.organization.create({ data: { name: "Bench", slug: "bench" } });
  const user = await createLocalUser(db, { email: "bench@evotrainer.local", name: "Bench", password, organizationId: org.id, role: "approver" });
  const recipeId = await db.$transaction((tx) => storeRecipe(tx, config.recipe));
  const run = (name: string) =>
    db.run.create({
      data: { organizationId: org.id, name, domain: "math", status: "paused", basePolicy: "gym:math", settings: json(config), evaluationProtocol: json(config.evaluation), autonomyPolicy: json(config.autonomy), budget: json(config.budget) },
    });
  const [big, small] = [await run("bench-2000-branches"), await run("bench-1-branch")];

  process.stdout.write(`seeding ${BRANCHES.toLocaleString("en")} branches and ${ROLLOUTS.toLocaleString("en")} rollouts…\n`);
  // A random tree: branch i descends from a branch before it.
  await db.$executeRaw`
    INSERT INTO "Branch" (id, "runId", "parentId", version, round, status, "recipeId", "promotionScore", "updatedAt")
    SELECT 'b' || i, ${big.id}, CASE WHEN i = 0 THEN NULL ELSE 'b' || floor(random() * i)::int END, i, i / 8,
           (ARRAY['promoted','rejected','vetoed','failed']::"BranchStatus"[])[1 + (i % 4)], ${recipeId}, random(), now()
      FROM generate_series(0, ${BRANCHES - 1}) AS i`;
  await db.branch.create({ data: { id: "s0", runId: small.id, version: 0, round: 0, status: "promoted", recipeId } });
  // Text kept, as ingest keeps it, for a sample of the rollouts (10%, by a hash, so that no filter rules
  // it out), of varied words for the text search: "answer" in half the kept texts, "kangaroo" in 0.05%.
  const seedRollouts = (branchId: string, runId: string, n: number) => db.$executeRaw`
    INSERT INTO "Rollout" ("runId", "branchId", split, step, "taskId", "groupId", sample, reward, "responseTokens", turns, truncated, uid, prompt, response)
    SELECT ${runId}, ${branchId}, 'train', i % 100, 't' || (i / 8 % 5000), 'g' || (i / 8), i % 8, (i % 3 = 0)::int, 100 + i % 900, 1, i % 20 = 0, 'u' || i,
           CASE WHEN kept THEN 'Solve problem ' || (i / 8 % 5000) || ' about ' || (ARRAY['trains','apples','circles','primes','coins','clocks','ladders'])[1 + i % 7] END,
           CASE WHEN kept THEN (CASE WHEN h % 2 = 0 THEN 'The answer is ' ELSE 'So we get ' END) || i % 997 || ', ' || md5(i::text) || (CASE WHEN h % 200 = 100 THEN ' kangaroo' ELSE '' END) END
      FROM generate_series(1, ${n}) AS i
        CROSS JOIN LATERAL (SELECT hashint4(i)::bigint & 2147483647 AS h) hashed CROSS JOIN LATERAL (SELECT (h / 7) % 10 = 0 AS kept) sampled`;
  await seedRollouts("b1", big.id, ROLLOUTS);
  await seedRollouts("s0", small.id, 1_000);
  const detector = await db.detector.create({ data: { key: "bench.truncated", label: "truncated", version: 1, domains: ["math"], cel: "truncated", description: "bench", testCases: {} } });
  for (const branchId of ["b1", "s0"]) {
    await db.$executeRaw`
      INSERT INTO "RolloutLabel" ("rolloutId", "branchId", split, step, label, "detectorId", evidence)
      SELECT id, "branchId", split, step, 'truncated', ${detector.id}, '{}'::jsonb FROM "Rollout" WHERE "branchId" = ${branchId} AND truncated`;
    await db.$executeRaw`
      INSERT INTO "LabelStat" (id, "branchId", split, step, label, "detectorId", count, total, "updatedAt")
      SELECT gen_random_uuid()::text, ${branchId}, split, step, 'truncated', ${detector.id}, count(*) FILTER (WHERE truncated), count(*), now()
        FROM "Rollout" WHERE "branchId" = ${branchId} GROUP BY split, step`;
  }
  // The search index as the worker leaves it once it has caught up with ingest.
  const indexing = await timed(async () => {
    for (const branchId of ["b1", "s0"]) await indexBranchSearch(db, branchId, 20_000);
  });
  process.stdout.write(`indexed the rollouts' text for search in ${(indexing / 1000).toFixed(1)} s\n`);
  await db.$executeRaw`ANALYZE`;

  // Queries through the real tRPC procedures, as the rollouts page issues them.
  const producer = () => {
    throw new Error("no producer in the bench");
  };
  const caller = appRouter.createCaller(createContext({ db, headers: new Headers(), sessionUserId: async () => user.id, producer }));
  // A share link's reader of the big run: its pages leave out the sealed split, a filter of their own.
  await db.shareLink.create({ data: { runId: big.id, tokenHash: sha256Hex("bench share token"), createdById: user.id } });
  const sharedCaller = appRouter.createCaller(createContext({ db, headers: new Headers(), shareToken: "bench share token", sessionUserId: async () => null, producer }));
  // Every filter combination the explorer offers, first page and next, as the page issues them.
  // At step 42 no rollout is truncated, so a step with the label finds nothing; at step 40 every one
  // is (named "@ step 40"), so each page is full: the two ends of how a step and a label can meet.
  const values = { label: "truncated", reward: { min: 0.5, max: 1 }, q: { rare: "kangaroo", common: "answer" } };
  const combinations = [
    ...rolloutFilterCombinations({ step: 42, ...values }),
    ...rolloutFilterCombinations({ step: 40, ...values })
      .filter(({ name }) => name.includes("step") && name.includes("label"))
      .map((c) => ({ ...c, name: `${c.name} @ step 40` })),
  ];
  const pages = async (branchId: string, readers: readonly (readonly [string, typeof caller])[]) => {
    const byCombination = new Map<string, number[]>();
    for (let i = 0; i < QUERY_ROUNDS; i++) {
      for (const [reader, api] of readers) {
        for (const { name, filter } of combinations) {
          const key = reader === "member" ? name : `${name} (${reader})`;
          const times = byCombination.get(key) ?? [];
          byCombination.set(key, times);
          let cursor: string | undefined;
          times.push(await timed(async () => {
            const page = await api.rollout.list({ branchId, ...filter, limit: 100 });
            cursor = page.nextCursor ?? undefined;
          }));
          if (cursor) times.push(await timed(() => api.rollout.list({ branchId, ...filter, limit: 100, cursor })));
        }
      }
    }
    return byCombination;
  };
  const member = [["member", caller]] as const;
  await pages("s0", member);
  const [smallByCombination, bigByCombination] = [await pages("s0", member), await pages("b1", [...member, ["share link", sharedCaller]])];
  const smallPages = [...smallByCombination.values()].flat();
  const bigPages = [...bigByCombination.values()].flat();
  const aggregate = async (branchId: string) => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) times.push(await timed(() => caller.rollout.labelCounts({ branchId })));
    return percentile(times, 50);
  };
  const labelAggregate = await aggregate("b1");
  const scan = percentile(
    await Promise.all(Array.from({ length: 5 }, () => timed(() => db.rolloutLabel.groupBy({ by: ["label"], where: { branchId: "b1" }, _count: true })))),
    50,
  );

  // The run page in Chromium, behind the real Next.js server.
  const child = spawn(`${root}/node_modules/.bin/next`, ["start", "--port", String(PORT), "--hostname", "127.0.0.1"], {
    cwd: webDir,
    env: { ...process.env, DATABASE_URL: database.url, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: "ignore",
  });
  server.kill = () => child.kill("SIGTERM");
  const base = `http://127.0.0.1:${PORT}`;
  for (let i = 0; i < 120 && !(await fetch(`${base}/api/health`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 250));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const page = await browser.newPage();
  await page.goto(`${base}/sign-in`);
  await page.getByLabel("Email").fill("bench@evotrainer.local");
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByTestId("signed-in-as").waitFor();
  const interactive = async (runId: string) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      times.push(await timed(async () => {
        // Interactive: the tree is laid out and its root node can be clicked.
        await page.goto(`${base}/runs/${runId}`);
        await page.getByTestId("tree-node-v0").getByRole("link").waitFor();
      }));
    }
    return percentile(times, 50);
  };
  await interactive(small.id);
  const [smallTti, bigTti] = [await interactive(small.id), await interactive(big.id)];
  const rendered = await page.locator("[data-testid^=tree-node-]").count();
  await browser.close();

  console.log(`dashboard at scale (${BRANCHES.toLocaleString("en")} branches; ${ROLLOUTS.toLocaleString("en")} rollouts on one branch)`);
  console.log(`  run page time to interactive    ${ms(bigTti)} (median of 5; target < 1.5 s)  (1-branch run: ${ms(smallTti)}, ×${(bigTti / smallTti).toFixed(2)}); ${rendered} tree nodes rendered`);
  console.log(`  rollouts page query             p50 ${ms(percentile(bigPages, 50))}, p95 ${ms(percentile(bigPages, 95))}  (1,000-rollout branch: p50 ${ms(percentile(smallPages, 50))}, p95 ${ms(percentile(smallPages, 95))})`);
  console.log(`  rollouts query per filter combination at ${ROLLOUTS.toLocaleString("en")} rollouts, to a member and to a share link (first and next page, ${QUERY_ROUNDS} rounds; target p95 < 100 ms):`);
  for (const [name, times] of bigByCombination) {
    const p95 = percentile(times, 95);
    console.log(`    ${name.padEnd(48)} p50 ${ms(percentile(times, 50)).padStart(9)}  p95 ${ms(p95).padStart(9)}${p95 >= 100 ? "  MISSED" : ""}`);
  }
  console.log(`  label aggregate (LabelStat)     p50 ${ms(labelAggregate)}  (a GROUP BY over the branch's labels: ${ms(scan)}, ×${(scan / labelAggregate).toFixed(1)} slower)`);
} finally {
  server.kill();
  await db.$disconnect();
  await database.drop();
}
