import { spawn } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { RemoteFile } from "../executor.ts";
import type { WeightsFiles } from "../job-weights.ts";
import { listFiles as listLocal, readRange as readRangeLocal, readTail as readTailLocal } from "../local/read-range.ts";
import { localWeightsFiles } from "../local/local-weights-files.ts";
import type { ExecInput, ExecResult } from "../ssh/remote-exec.ts";
import { exists, listFiles as listSftp, readRange as readRangeSftp, readTail as readTailSftp, readText as readTextSftp, writeFile as writeSftp } from "../ssh/sftp-files.ts";
import { sftpWeightsFiles } from "../ssh/sftp-weights-files.ts";
import type { Session, SshConnection } from "../ssh/ssh-connection.ts";

/**
 * Where the worker runs Slurm's commands and reaches the shared filesystem: this machine (the worker
 * runs on a login node) or a login node over SSH. Paths are the shared filesystem's.
 */
export interface LoginNode {
  readonly description: string;
  /** Runs a POSIX sh script; a non-zero exit is an answer, not an error. */
  exec(script: string, input?: ExecInput): Promise<ExecResult>;
  readText(path: string): Promise<string | null>;
  exists(path: string): Promise<boolean>;
  writeFile(path: string, content: string): Promise<void>;
  listFiles(root: string, dir: string): Promise<RemoteFile[]>;
  readRange(path: string, offset: number, maxBytes: number): Promise<Buffer>;
  readTail(path: string, maxBytes: number): Promise<string>;
  weightsFiles(): WeightsFiles;
  close(): Promise<void>;
}

// What Slurm's commands need of the worker's environment: never its secrets (DATABASE_URL,
// EVO_MASTER_KEY), which sbatch would otherwise hand to every job (it exports the submitter's
// environment). SLURM_CONF points the clients at a cluster other than /etc/slurm's.
const PASSED = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "SLURM_CONF"];

/** Slurm's commands run here, the shared filesystem mounted here. */
export function localLogin(env: Record<string, string | undefined> = process.env): LoginNode {
  const passed = Object.fromEntries(PASSED.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]!]])));
  return {
    description: "this machine (the cluster's login node)",
    exec: (script, input = {}) =>
      new Promise((resolve, reject) => {
        const child = spawn("sh", ["-c", script], { env: passed, stdio: [input.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
        const stdout: Buffer[] = [];
        const stderr: Buffer[] = [];
        const timer = input.timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), input.timeoutMs);
        child.stdout!.on("data", (data: Buffer) => stdout.push(data));
        child.stderr!.on("data", (data: Buffer) => stderr.push(data));
        child.on("error", reject);
        child.on("close", (code, signal) => {
          clearTimeout(timer);
          if (code === null) return reject(new Error(`the command was killed by ${signal}${input.timeoutMs !== undefined ? ` (limit ${Math.round(input.timeoutMs / 1000)} s)` : ""}`));
          resolve({ code, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") });
        });
        if (input.stdin !== undefined) {
          // A command that exits without reading its input closes the pipe under the write: that is its answer, not an error.
          child.stdin!.on("error", (error: NodeJS.ErrnoException) => {
            if (error.code !== "EPIPE") reject(error);
          });
          child.stdin!.end(input.stdin);
        }
      }),
    readText: (path) => readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : Promise.reject(error))),
    exists: (path) => stat(path).then(() => true, (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? false : Promise.reject(error))),
    writeFile: async (path, content) => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content, { mode: 0o600 });
    },
    listFiles: listLocal,
    readRange: readRangeLocal,
    readTail: readTailLocal,
    weightsFiles: () => localWeightsFiles,
    close: async () => {},
  };
}

/** Slurm's commands run on a login node over the SSH executor's connection code; files move over its SFTP session. */
export function sshLogin(connection: SshConnection): LoginNode {
  const run = <T>(what: string, operation: (session: Session) => Promise<T>) => connection.run(what, operation);
  return {
    description: connection.description,
    exec: (script, input) => run("a Slurm command", (session) => session.exec(script, input)),
    readText: (path) => run(`read of ${path}`, (session) => readTextSftp(session.sftp, path)),
    exists: (path) => run(`look at ${path}`, (session) => exists(session.sftp, path)),
    writeFile: (path, content) => run(`write of ${path}`, (session) => writeSftp(session.sftp, path, content)),
    listFiles: (root, dir) => run(`listing of ${dir} in ${root}`, (session) => listSftp(session.sftp, root, dir)),
    readRange: (path, offset, maxBytes) => run(`read of ${path}`, (session) => readRangeSftp(session.sftp, path, offset, maxBytes)),
    readTail: (path, maxBytes) => run(`read of ${path}`, (session) => readTailSftp(session.sftp, path, maxBytes)),
    weightsFiles: () => sftpWeightsFiles((what, operation) => connection.run(what, operation)),
    close: () => connection.close(),
  };
}
