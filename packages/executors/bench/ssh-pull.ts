// npm run bench -w @evotrainer/executors: how fast a remote job's outputs come back over SFTP
// (SshExecutor.readFrom in the monitor's 4 MiB chunks, against a real sshd on 127.0.0.1) against
// reading the same file from the local disk (LocalExecutor.readFrom), in the same run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSshd } from "../../../tests/support/sshd.ts";
import type { Executor, JobHandle } from "../src/executor.ts";
import { LocalExecutor } from "../src/local/local-executor.ts";
import { SshExecutor } from "../src/ssh/ssh-executor.ts";

const MIB = 1024 * 1024;
const SIZE_MIB = Number(process.env.BENCH_MIB ?? 64);
const CHUNK = 4 * MIB;
const FILE = "output/rollouts/train/step_1.jsonl";

async function pull(executor: Executor, handle: JobHandle): Promise<{ seconds: number; bytes: number }> {
  const started = process.hrtime.bigint();
  let offset = 0;
  for (;;) {
    const chunk = await executor.readFrom(handle, FILE, offset, CHUNK);
    if (chunk.length === 0) break;
    offset += chunk.length;
  }
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, bytes: offset };
}

const root = mkdtempSync(join(tmpdir(), "evo-bench-ssh-"));
const line = `${JSON.stringify({ uid: "x", response: "step by step ".repeat(150) })}\n`;
mkdirSync(join(root, "job1", "output/rollouts/train"), { recursive: true });
writeFileSync(join(root, "job1", FILE), line.repeat(Math.ceil((SIZE_MIB * MIB) / line.length)));

const sshd = await startSshd();
const ssh = new SshExecutor({ name: "bench", host: "127.0.0.1", port: sshd.port, user: process.env.USER ?? "root", privateKey: sshd.privateKey, workRoot: root });
try {
  const handle: JobHandle = { executor: "local", externalId: "0", workDir: join(root, "job1") };
  await pull(ssh, { ...handle, executor: "ssh" }); // connect and warm up
  const local = await pull(new LocalExecutor(root), handle);
  const remote = await pull(ssh, { ...handle, executor: "ssh" });
  const rate = (r: { seconds: number; bytes: number }) => r.bytes / MIB / r.seconds;
  console.log(`file: ${(local.bytes / MIB).toFixed(0)} MiB of JSONL, read in ${CHUNK / MIB} MiB chunks`);
  console.log(`local disk (baseline)     ${rate(local).toFixed(0).padStart(6)} MiB/s  ${local.seconds.toFixed(2)} s`);
  console.log(`SFTP over loopback sshd   ${rate(remote).toFixed(0).padStart(6)} MiB/s  ${remote.seconds.toFixed(2)} s  (${(rate(remote) / rate(local)).toFixed(3)}× local)`);
} finally {
  await ssh.close();
  await sshd.dispose();
  rmSync(root, { recursive: true, force: true });
}
