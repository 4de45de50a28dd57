import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProbeResult, ProbeSpec } from "../executor.ts";
import { checkProbe, PROBE_SCRIPT, probeTimedOut } from "../probe-dir.ts";

const WHERE = "this machine";

/**
 * Runs a probe on this machine in a temporary directory. It inherits this process's environment
 * (PATH, PYTHONPATH…), as the command a person would type here does.
 */
export async function probeHere(spec: ProbeSpec): Promise<ProbeResult> {
  checkProbe(spec);
  const dir = await mkdtemp(join(tmpdir(), `evo-probe-${spec.id}-`));
  try {
    for (const [name, content] of Object.entries(spec.files)) await writeFile(join(dir, name), content);
    return await new Promise<ProbeResult>((resolve, reject) => {
      const child = spawn("sh", ["-c", PROBE_SCRIPT, dir, ...spec.command], { stdio: ["pipe", "pipe", "pipe"] });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(probeTimedOut(WHERE, spec));
      }, spec.timeoutSeconds * 1_000);
      child.stdout.on("data", (data: Buffer) => stdout.push(data));
      child.stderr.on("data", (data: Buffer) => stderr.push(data));
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        resolve({ exitCode: code ?? 128 + (signal === "SIGKILL" ? 9 : 15), stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8"), where: WHERE });
      });
      // A command that exits without reading its input closes the pipe under us: its exit code tells.
      child.stdin.on("error", () => {});
      child.stdin.end(spec.stdin);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
