import type { Client, ClientChannel } from "ssh2";
import { shellQuote } from "./shell-quote.ts";

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ExecInput {
  /** Written to the script's standard input, which is then closed. */
  stdin?: string;
  /** The channel is closed and the call fails after this long without an exit. */
  timeoutMs?: number;
}

/** The error of a script that did not exit within its `timeoutMs`. */
export class ExecTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the command did not exit within ${Math.round(timeoutMs / 1000)} s`);
    this.name = "ExecTimeoutError";
  }
}

/**
 * Runs a POSIX sh script on the node. It goes through `sh -c` so that the login shell (bash, zsh…)
 * only has to parse one quoted word, and the script means the same everywhere.
 */
export function execScript(client: Client, script: string, input: ExecInput = {}): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    client.exec(`sh -c ${shellQuote(script)}`, (error: Error | undefined, stream: ClientChannel) => {
      if (error) return reject(error);
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let code: number | null = null;
      const timer =
        input.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              reject(new ExecTimeoutError(input.timeoutMs!));
              stream.close();
            }, input.timeoutMs);
      stream.on("data", (data: Buffer) => stdout.push(data));
      stream.stderr.on("data", (data: Buffer) => stderr.push(data));
      stream.on("exit", (exitCode: number | null) => {
        code = exitCode;
      });
      stream.on("error", reject);
      stream.on("close", () => {
        clearTimeout(timer);
        if (code === null) return reject(new Error("the session ended before the command reported its exit"));
        resolve({ code, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") });
      });
      if (input.stdin !== undefined) stream.end(input.stdin);
    });
  });
}
