import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { CLI } from "./cli.ts";

/** A port on 127.0.0.1 where nothing listens: one the system just handed out, closed again. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Everything a child wrote on stdout and stderr until `pattern` first appears in it: a test waits on
 * what the program says rather than on time. Rejects, with the output, if the child exits first.
 */
export function outputUntil(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!pattern.test(output)) return;
      stop();
      resolve(output);
    };
    const onExit = (code: number | null, signal: string | null) => {
      stop();
      reject(new Error(`exited (${signal ?? code}) before saying ${pattern}:\n${output}`));
    };
    const stop = () => {
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  });
}

/**
 * Runs the built CLI until it says `pattern`, then stops it as Ctrl-C would and waits for it to exit:
 * for commands that wait on a service and would otherwise never end. Returns what it said until then.
 */
export async function cliUntil(args: string[], env: Record<string, string>, pattern: RegExp): Promise<string> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    return await outputUntil(child, pattern);
  } finally {
    child.kill("SIGINT");
    await exited;
  }
}
