import { spawn } from "node:child_process";
import { resolve } from "node:path";

/**
 * The built programs, as users run them. The test runners build them first when a source changed
 * (scripts/build-programs.mjs, from tests/integration/global-setup.ts and tests/e2e/run.ts).
 */
export const CLI = resolve("apps/cli/bin/evotrainer.js");
export const WORKER = resolve("apps/worker/dist/main.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `evotrainer` CLI as a child process (asynchronously, so a worker in this process keeps running). */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runProgram(process.execPath, [CLI, ...args], env);
}

/** Runs `command` as a child process, as a shell would: an installed `evotrainer` from another directory, say. */
export function runProgram(command: string, args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
