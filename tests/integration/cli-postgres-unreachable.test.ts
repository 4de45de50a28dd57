import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { CLI } from "../support/cli.ts";
import { cliUntil, closedPort, outputUntil } from "../support/child-output.ts";

const databaseUrl = inject("databaseUrl");
// No credentials file: the CLI is in local mode, on this machine's database.
const home = mkdtempSync(join(tmpdir(), "evo-cli-pg-down-"));
const local = (port: number) => ({ XDG_CONFIG_HOME: home, EVO_SERVER: "", DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/${new URL(databaseUrl).pathname.slice(1)}` });
const UNREACHABLE = /PostgreSQL at 127\.0\.0\.1:(\d+) is unreachable; retrying \(Ctrl-C to stop\)/;
// A stack frame as Node prints one: "    at fn (file:line:col)".
const STACK_FRAME = /^\s+at /m;

/** Forwards a port to the real PostgreSQL: the server "comes back" at the address the CLI was given. */
async function forward(port: number): Promise<() => Promise<void>> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

describe("a local CLI command while PostgreSQL is unreachable", () => {
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("says so in one line naming the server, with no stack trace", async () => {
    const port = await closedPort();
    const said = await cliUntil(["status"], local(port), UNREACHABLE);
    expect(said.match(UNREACHABLE)![1]).toBe(String(port));
    expect(said.match(/unreachable/g)).toHaveLength(1);
    expect(said).not.toMatch(STACK_FRAME);
    expect(said).not.toMatch(/Invalid `prisma/);
  });

  it("says once when PostgreSQL answers again, then runs the command", async () => {
    const port = await closedPort();
    const child = spawn(process.execPath, [CLI, "status", "no-such-run"], { env: { ...process.env, ...local(port) } });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await outputUntil(child, UNREACHABLE);
    const stop = await forward(port);
    try {
      expect(await exited).toBe(1);
    } finally {
      await stop();
    }
    const lines = output.trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(UNREACHABLE),
      `PostgreSQL at 127.0.0.1:${port} answers again; carrying on`,
      // The command ran against the database: it looked for the run and did not find it.
      "evotrainer: no run with id no-such-run; `evotrainer status` shows the latest",
    ]);
  });
});
