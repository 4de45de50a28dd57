import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export interface Child {
  process: ChildProcess;
  exited: Promise<number>;
  stop(): Promise<number>;
}

/** Spawns a long-running service with every output line prefixed by its name. */
export function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Child {
  const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => console.log(`[${name}] ${line}`));
  }
  const exited = new Promise<number>((resolve) => child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  return {
    process: child,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Runs a command to completion with inherited output; resolves with its exit code. */
export function runToEnd(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, stdio: "inherit" });
    child.once("exit", (code) => resolve(code ?? 1));
  });
}
