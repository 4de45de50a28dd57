// `npm run bench -w @evotrainer/cli`: how long the built CLI and worker take to start, against
// `node -e ''` measured in the same run. Each command runs as a whole process, as a user runs it;
// medians of several runs, each kind interleaved with the others so a busy moment hits all alike.
// Beside each wall time, the CPU time (user + sys) the process spent: on a machine others share,
// wall time grows with their load, CPU time much less, so it tells whether a change made start-up cheaper.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
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

interface Timing {
  /** Milliseconds from spawn to exit (to listening, for the worker). */
  wall: number;
  /** Milliseconds of CPU, user + sys, over the same span; NaN where the system does not say. */
  cpu: number;
}

/**
 * Runs `node args` under `sh`, whose `times` then prints the CPU its children used (Node reports no
 * child's rusage). Every command pays the same few milliseconds of shell, node's baseline included.
 */
function timed(args: string[], env: NodeJS.ProcessEnv): Timing {
  const start = performance.now();
  const script = '"$0" "$@" >/dev/null; status=$?; times >&2; exit $status';
  const result = spawnSync("sh", ["-c", script, process.execPath, ...args], { env, encoding: "utf8" });
  const wall = performance.now() - start;
  if (result.status !== 0) throw new Error(`\`node ${args.join(" ")}\` exited with ${result.status}: ${result.stderr.trim()}`);
  // The last line of `times`: the children's user and system time, as "0m0.52s 0m0.06s".
  const children = result.stderr.trim().split("\n").at(-1)!.match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/);
  const cpu = children ? (Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])) * 1000 : NaN;
  return { wall, cpu };
}

// Linux's clock ticks per second, the unit of /proc/<pid>/stat's CPU times.
const clockTicks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

/** CPU milliseconds (user + sys, all its threads) a running process has used so far; NaN without /proc. */
function cpuSoFar(pid: number): number {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces: utime is the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return NaN;
  }
}

/** From spawn to the worker's "listening" line; then the worker is stopped as an operator would. */
function workerListening(env: NodeJS.ProcessEnv): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [worker], { env, stdio: ["ignore", "pipe", "inherit"] });
    let listening: Timing | undefined;
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (listening === undefined && line.startsWith("worker: listening")) {
        listening = { wall: performance.now() - start, cpu: cpuSoFar(child.pid!) };
        child.kill("SIGTERM");
      }
    });
    child.on("exit", (code) => (listening === undefined ? reject(new Error(`the worker exited with ${code} before listening`)) : resolve(listening)));
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
  const times = { node: [] as Timing[], version: [] as Timing[], status: [] as Timing[], worker: [] as Timing[] };
  for (let i = 0; i < ROUNDS; i++) {
    times.node.push(timed(["-e", ""], env));
    times.version.push(timed([cli, "--version"], env));
    times.status.push(timed([cli, "status"], env));
    times.worker.push(await workerListening(env));
  }
  const wall = (kind: keyof typeof times) => median(times[kind].map((t) => t.wall));
  const cpu = (kind: keyof typeof times) => `CPU ${seconds(median(times[kind].map((t) => t.cpu)))}`;
  const [node, version, status, listening] = [wall("node"), wall("version"), wall("status"), wall("worker")];
  const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
  console.log(`\nstart-up, median of ${ROUNDS} runs each (interleaved); CPU is user + sys:`);
  console.log(`  node -e ''               ${seconds(node)}   ${cpu("node")}`);
  console.log(`  evotrainer --version     ${seconds(version)}   ${cpu("version")}   = ${(version / node).toFixed(2)}× node   (target ≤ 3×: ${verdict(version <= 3 * node)})`);
  console.log(`  evotrainer status        ${seconds(status)}   ${cpu("status")}   = node + ${seconds(status - node)}   (target ≤ node + 0.5 s: ${verdict(status - node <= 500)})`);
  console.log(`  worker listening after   ${seconds(listening)}   ${cpu("worker")} (all its threads)   (target ≤ 2 s: ${verdict(listening <= 2000)})`);
} finally {
  await database.drop();
  await deleteKeys(redisUrl, `${prefix}:*`);
}
