import type { SFTPWrapper, Stats } from "ssh2";
import type { WeightsEntry, WeightsFiles } from "../job-weights.ts";
import { shellQuote } from "./shell-quote.ts";
import type { Session } from "./ssh-connection.ts";

// SFTP status code for a path that does not exist (SSH_FX_NO_SUCH_FILE).
const NO_SUCH_FILE = 2;

const missing = (error: unknown) => (error as { code?: unknown } | null)?.code === NO_SUCH_FILE;

const entryOf = (attrs: Stats): WeightsEntry => ({ directory: attrs.isDirectory(), size: attrs.size });

function lstat(sftp: SFTPWrapper, path: string): Promise<WeightsEntry | null> {
  return new Promise((resolve, reject) =>
    sftp.lstat(path, (error, attrs) => (error ? (missing(error) ? resolve(null) : reject(error)) : resolve(entryOf(attrs)))),
  );
}

/**
 * Retention's file operations on an SSH node: sizes over SFTP (whose directory listings carry each
 * entry's lstat, so a tree costs one round trip per directory), deletion as one `rm -rf` on the node
 * instead of an SFTP request per file. `run` runs an operation on the node's shared connection.
 */
export function sftpWeightsFiles(run: <T>(what: string, operation: (session: Session) => Promise<T>) => Promise<T>): WeightsFiles {
  return {
    lstat: (path) => run(`lstat of ${path}`, (session) => lstat(session.sftp, path)),
    readdir: (path) =>
      run(`listing of ${path}`, (session) =>
        new Promise((resolve, reject) =>
          session.sftp.readdir(path, (error, list) => {
            if (error) return missing(error) ? resolve([]) : reject(error);
            resolve(list.filter(({ filename }) => filename !== "." && filename !== "..").map(({ filename, attrs }) => ({ name: filename, ...entryOf(attrs) })));
          }),
        ),
      ),
    remove: (path) =>
      run(`deletion of ${path}`, async (session) => {
        const { code, stderr } = await session.exec(`rm -rf -- ${shellQuote(path)}`);
        if (code !== 0) throw new Error(`could not delete ${path} (rm exited ${code}): ${stderr.trim()}`);
      }),
  };
}
