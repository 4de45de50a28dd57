import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, searchRolloutIds } from "@evotrainer/db";
import pg from "pg";
const url = "postgresql://postgres@127.0.0.1:5432/rollout_search_dev";
const queries: { query: string; params: unknown[] }[] = [];
const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }), log: [{ emit: "event", level: "query" }] });
db.$on("query", (e) => queries.push({ query: e.query, params: JSON.parse(e.params) }));
const sql = new pg.Client({ connectionString: url });
await sql.connect();
const combos: Record<string, object> = {
  "q-rare": { q: "kangaroo" }, "q-common": { q: "answer" }, "q-rare+split": { q: "kangaroo", split: "train" }, "q-common+split": { q: "answer", split: "train" },
  "q-rare+step": { q: "kangaroo", step: 42 }, "q-common+step": { q: "answer", step: 42 }, "q-rare+label": { q: "kangaroo", label: "truncated" }, "q-common+label": { q: "answer", label: "truncated" },
  "q-rare+reward": { q: "kangaroo", rewardMin: 0.5, rewardMax: 1 }, "q-common+reward": { q: "answer", rewardMin: 0.5, rewardMax: 1 },
  "q-common+all": { q: "answer", split: "train", step: 42, label: "truncated", rewardMin: 0.5, rewardMax: 1 }, "q-rare+all": { q: "kangaroo", split: "train", step: 42, label: "truncated", rewardMin: 0.5, rewardMax: 1 },
  "q-common sealedhidden": { q: "answer", notSealed: true }, "q-rare sealedhidden": { q: "kangaroo", notSealed: true },
};
const only = process.argv[2];
for (const [name, f] of Object.entries(combos)) {
  if (only && name !== only) continue;
  queries.length = 0;
  const t = performance.now();
  const ids = await searchRolloutIds(db, { branchId: "big", limit: 101, ...(f as { q: string }) });
  const ms = performance.now() - t;
  const q = queries.find((x) => x.query.includes("UNION"))!;
  const { rows } = await sql.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.query}`, q.params);
  const plan = rows[0]["QUERY PLAN"][0];
  const idx: string[] = [];
  const walk = (n: any) => { if (n["Index Name"]) idx.push(`${n["Node Type"]}:${n["Index Name"]}`); (n.Plans ?? []).forEach(walk); };
  walk(plan.Plan);
  console.log(`${name.padEnd(24)} ${ms.toFixed(1).padStart(7)} ms (explain ${plan["Execution Time"].toFixed(1)}) rows ${ids.length}  ${[...new Set(idx)].join(" ")}`);
  if (only) console.log(JSON.stringify(plan.Plan, (k, v) => (["Parallel Aware", "Async Capable", "Startup Cost", "Plan Width", "Output"].includes(k) ? undefined : v), 1));
}
await sql.end(); await db.$disconnect();
