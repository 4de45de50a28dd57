import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SSHD = "/usr/sbin/sshd";

export interface Sshd {
  port: number;
  /** The client key that sshd accepts (OpenSSH format). */
  privateKey: string;
  /** Stops the server and every connection it serves, as when a node goes down. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Kills the server's per-connection processes (every open connection drops); it keeps listening. */
  dropSessions(): void;
  /** Stops the server and removes its files. */
  dispose(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** Whether an SSH server answers on `port` with its version banner. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("data", (data) => done(data.toString("latin1").startsWith("SSH-")));
    socket.once("error", () => done(false));
  });
}

/** Parent pid and command name of every process, from /proc/<pid>/stat ("pid (comm) S ppid …"). */
function processes(): { pid: number; ppid: number; comm: string }[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return [{ pid: Number(entry), ppid, comm }];
      } catch {
        return [];
      }
    });
}

/** The sshd processes below `root` (a connection's monitor and its unprivileged child). */
function sshdDescendants(root: number): number[] {
  const all = processes();
  const found: number[] = [];
  let parents = [root];
  while (parents.length) {
    const children = all.filter((entry) => parents.includes(entry.ppid) && entry.comm === "sshd").map(({ pid }) => pid);
    found.push(...children);
    parents = children;
  }
  return found;
}

/**
 * A real OpenSSH server on 127.0.0.1 with a throwaway host key, accepting one throwaway client key,
 * for tests of code that talks SSH. Runs as the current user (root in CI). `setEnv` is given to every
 * session (sshd's SetEnv).
 */
export async function startSshd(options: { setEnv?: Record<string, string> } = {}): Promise<Sshd> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is missing: install OpenSSH's server with \`apt-get install -y openssh-server\``);
  const dir = mkdtempSync(join(tmpdir(), "evo-sshd-"));
  const keygen = (file: string) => execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "evo-test", "-f", join(dir, file)]);
  keygen("host_key");
  keygen("client_key");
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")));
  const port = await freePort();
  const config = join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      "ListenAddress 127.0.0.1",
      `Port ${port}`,
      `HostKey ${join(dir, "host_key")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "StrictModes no",
      `PidFile ${join(dir, "sshd.pid")}`,
      "PermitRootLogin prohibit-password",
      "Subsystem sftp internal-sftp",
      // Variables every session gets, as a login node's profile would set them.
      ...Object.entries(options.setEnv ?? {}).map(([name, value]) => `SetEnv ${name}=${value}`),
      "",
    ].join("\n"),
  );
  // sshd refuses to start without its privilege separation directory.
  mkdirSync("/run/sshd", { recursive: true });

  let server: ChildProcess | null = null;
  let output = "";
  const start = async () => {
    const child = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.on("data", (data: Buffer) => {
      output = (output + data.toString()).slice(-4_000);
    });
    server = child;
    for (let i = 0; i < 100; i++) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`sshd exited (${child.exitCode ?? child.signalCode}):\n${output}`);
      if (await answers(port)) return;
      await sleep(50);
    }
    throw new Error(`sshd did not answer on port ${port}:\n${output}`);
  };
  const dropSessions = () => {
    if (!server?.pid) return;
    for (const pid of sshdDescendants(server.pid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already: its connection dropped with its parent.
      }
    }
  };
  const stop = async () => {
    const child = server;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    dropSessions();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    server = null;
  };
  await start();
  return {
    port,
    privateKey: readFileSync(join(dir, "client_key"), "utf8"),
    start,
    stop,
    dropSessions,
    dispose: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
