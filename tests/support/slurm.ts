import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, hostname, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";

const run = promisify(execFile);

const DAEMONS = { munged: "/usr/sbin/munged", slurmctld: "/usr/sbin/slurmctld", slurmd: "/usr/sbin/slurmd" } as const;

export interface Slurm {
  /** The node's (and controller's) name: this machine's short hostname. */
  node: string;
  partition: string;
  /** What a Slurm client needs to reach this cluster: SLURM_CONF. */
  env: { SLURM_CONF: string };
  /** A directory every job of the cluster can reach: the "shared filesystem" of a one-node cluster. */
  sharedDir: string;
  /** Runs a Slurm client command (scontrol, squeue, scancel…) against this cluster; rejects on a non-zero exit. */
  client(command: string, args: string[]): Promise<string>;
  /** Stops slurmctld (jobs on slurmd run on), then starts it again with `startController`. */
  stopController(): Promise<void>;
  startController(): Promise<void>;
  /** Stops every daemon and removes the cluster's files. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `look` (a command's answer, a file) until it says yes; fails with the daemons' logs. */
async function waitFor(what: string, look: () => Promise<boolean>, logs: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await look().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`Slurm test cluster: timed out waiting for ${what}\n${logs()}`);
    await sleep(100);
  }
}

/**
 * A real one-node Slurm cluster on this machine, for tests: munged, slurmctld and slurmd from
 * Debian's `munge` and `slurm-wlm`, run in the foreground as the current user (root in CI, whom
 * Slurm then also runs the jobs as), with every file (munge key and socket, state, spool, logs)
 * under a temporary directory and ports of their own, so two test files may each have one.
 *
 * No accounting: Slurm 22.05's sacct needs slurmdbd and a MariaDB database, which a test file cannot
 * start within its time; jobs are watched with `scontrol show job`, which the controller answers for
 * MinJobAge seconds after a job ends.
 */
export async function startSlurm(): Promise<Slurm> {
  for (const [name, path] of Object.entries(DAEMONS)) {
    if (!existsSync(path)) throw new Error(`${path} is missing: install Debian's munge and slurm-wlm (\`apt-get install -y munge slurm-wlm\`) for ${name}`);
  }
  const dir = mkdtempSync(join(tmpdir(), "evo-slurm-"));
  const node = hostname().split(".")[0]!;
  const partition = "evo";
  const munge = join(dir, "munge");
  mkdirSync(munge, { mode: 0o700 });
  // munged wants a socket directory others may traverse, and a key only its user reads.
  chmodSync(munge, 0o711);
  for (const sub of ["state", "spool", "log", "shared"]) mkdirSync(join(dir, sub));
  const key = join(munge, "munge.key");
  writeFileSync(key, randomBytes(128), { mode: 0o400 });
  const socket = join(munge, "munge.socket");
  const [controllerPort, nodePort] = [await freePort(), await freePort()];
  const conf = join(dir, "slurm.conf");
  writeFileSync(
    conf,
    [
      "ClusterName=evotest",
      `SlurmctldHost=${node}`,
      `SlurmUser=${userInfo().username}`,
      "AuthType=auth/munge",
      "CredType=cred/munge",
      `AuthInfo=socket=${socket}`,
      `SlurmctldPort=${controllerPort}`,
      `SlurmdPort=${nodePort}`,
      `StateSaveLocation=${join(dir, "state")}`,
      `SlurmdSpoolDir=${join(dir, "spool")}`,
      `SlurmctldPidFile=${join(dir, "slurmctld.pid")}`,
      `SlurmdPidFile=${join(dir, "slurmd.pid")}`,
      `SlurmctldLogFile=${join(dir, "log", "slurmctld.log")}`,
      `SlurmdLogFile=${join(dir, "log", "slurmd.log")}`,
      // No cgroups in a container: processes are tracked by their parentage.
      "ProctrackType=proctrack/linuxproc",
      "TaskPlugin=task/none",
      "SelectType=select/cons_tres",
      "SelectTypeParameters=CR_Core",
      "SchedulerType=sched/backfill",
      "AccountingStorageType=accounting_storage/none",
      "JobAcctGatherType=jobacct_gather/none",
      "JobCompType=jobcomp/none",
      "MpiDefault=none",
      "ReturnToService=2",
      // Ended jobs stay visible to `scontrol show job` this long: longer than a test file runs.
      "MinJobAge=600",
      "SlurmctldTimeout=30",
      // A client's wait for an answer; with the default 10 s, a command against a stopped controller takes 18 s to give up.
      "MessageTimeout=3",
      "SlurmdTimeout=30",
      "InactiveLimit=0",
      // A cancelled or timed-out job gets 5 s between SIGTERM and SIGKILL; no grace past its limit.
      "KillWait=5",
      "OverTimeLimit=0",
      `NodeName=${node} CPUs=${cpus().length} RealMemory=1000 State=UNKNOWN`,
      // Each core takes up to 4 jobs: the tests' jobs are light, and a 2-core CI machine would otherwise run two at a time.
      `PartitionName=${partition} Nodes=${node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4`,
      "",
    ].join("\n"),
  );
  const env = { SLURM_CONF: conf };
  const children: Record<string, ChildProcess> = {};
  const output: Record<string, string> = {};
  const logs = () => Object.entries(output).map(([name, text]) => `--- ${name}\n${text.slice(-2_000)}`).join("\n");
  const start = (name: keyof typeof DAEMONS, args: string[]) => {
    output[name] = "";
    const child = spawn(DAEMONS[name], args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    const keep = (data: Buffer) => (output[name] = (output[name] + data.toString()).slice(-8_000));
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    children[name] = child;
  };
  const stopDaemon = async (name: string) => {
    const child = children[name];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  const client = async (command: string, args: string[]) => (await run(command, args, { env: { ...process.env, ...env } })).stdout;

  try {
    start("munged", ["-F", "-f", `--socket=${socket}`, `--key-file=${key}`, `--pid-file=${join(munge, "munged.pid")}`, `--seed-file=${join(munge, "seed")}`, `--log-file=${join(dir, "log", "munged.log")}`]);
    await waitFor("munged's socket", async () => existsSync(socket), logs);
    const startController = async () => {
      start("slurmctld", ["-D", "-f", conf]);
      await waitFor("slurmctld to answer", async () => (await client("scontrol", ["ping"])).includes("is UP"), logs);
    };
    await startController();
    start("slurmd", ["-D", "-f", conf]);
    await waitFor(`sinfo to show node ${node} idle`, async () => (await client("sinfo", ["-h", "-n", node, "-o", "%T"])).trim() === "idle", logs);
    return {
      node,
      partition,
      env,
      sharedDir: join(dir, "shared"),
      client,
      stopController: () => stopDaemon("slurmctld"),
      startController,
      stop: async () => {
        // slurmd leaves the jobs it runs behind when it stops: end them first, and wait till they are gone.
        await client("scancel", ["--user", userInfo().username]).catch(() => "");
        await waitFor("the cluster's jobs to end", async () => (await client("squeue", ["-h", "-o", "%i"])).trim() === "", logs).catch(() => {});
        for (const name of ["slurmd", "slurmctld", "munged"]) await stopDaemon(name);
        rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      },
    };
  } catch (error) {
    for (const name of ["slurmd", "slurmctld", "munged"]) await stopDaemon(name);
    throw error;
  }
}
