// `npm run bench -w @evotrainer/cli`: how long the built CLI and worker take to start, against
// `node -e ''` measured in the same run. Each command runs as a whole process, as a user runs it;
// medians of several runs, each kind interleaved with the others so a busy moment hits all alike.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { DEFAULT_REDIS_URL } from "@evotrainer/queue";
import { seedRunWithJob } from "../../../tests/support/seed.ts";
import { deleteKeys, nameTestRun, testPrefix } from "../../../tests/support/redis-prefix.ts";

const ROUNDS = Number(process.env.EVO_BENCH_ROUNDS ?? 9);
const root = fileURLToPath(new URL("../../..", import.meta.url));
const cli = fileURLToPath(new URL("../bin/evotrainer.js", import.meta.url));
const worker = fileURLToPath(new URL("../../worker/dist/main.js", import.meta.url));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { env, encoding: "utf8" });
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`\`node ${args.join(" ")}\` exited with ${result.status}: ${result.stderr.trim()}`);
  return elapsed;
}

/** From spawn to the worker's "listening" line; then the worker is stopped as an operator would. */
function workerListening(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [worker], { env, stdio: ["ignore", "pipe", "inherit"] });
    let listeningAfter: number | undefined;
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (listeningAfter === undefined && line.startsWith("worker: listening")) {
        listeningAfter = performance.now() - start;
        child.kill("SIGTERM");
      }
    });
    child.on("exit", (code) => (listeningAfter === undefined ? reject(new Error(`the worker exited with ${code} before listening`)) : resolve(listeningAfter)));
  });
}

const build = spawnSync(process.execPath, ["scripts/build-programs.mjs"], { cwd: root, stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

const database = await createTestDatabase();
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
nameTestRun();
const prefix = testPrefix();
try {
  const db = createDatabase(database.url);
  await seedRunWithJob(db, "startup-bench");
  await db.$disconnect();
  // A config folder without credentials: `status` reads this machine's database, not a saved server.
  const env = { ...process.env, DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), "evo-bench-")) };
  const times = { node: [] as number[], version: [] as number[], status: [] as number[], worker: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    times.node.push(timed(["-e", ""], env));
    times.version.push(timed([cli, "--version"], env));
    times.status.push(timed([cli, "status"], env));
    times.worker.push(await workerListening(env));
  }
  const node = median(times.node);
  const version = median(times.version);
  const status = median(times.status);
  const listening = median(times.worker);
  const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
  console.log(`\nstart-up, median of ${ROUNDS} runs each (interleaved):`);
  console.log(`  node -e ''               ${seconds(node)}`);
  console.log(`  evotrainer --version     ${seconds(version)}  = ${(version / node).toFixed(2)}× node   (target ≤ 3×: ${verdict(version <= 3 * node)})`);
  console.log(`  evotrainer status        ${seconds(status)}  = node + ${seconds(status - node)}   (target ≤ node + 0.5 s: ${verdict(status - node <= 500)})`);
  console.log(`  worker listening after   ${seconds(listening)}   (target ≤ 2 s: ${verdict(listening <= 2000)})`);
} finally {
  await database.drop();
  await deleteKeys(redisUrl, `${prefix}:*`);
}
