import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { weightsIn, type JobHandle, type JobObservation, type LaunchSpec, type SshExecutorOptions, type SshNode } from "@evotrainer/executors";
import { SshExecutor } from "@evotrainer/executors/ssh-executor";
import { startSshd, type Sshd } from "../support/sshd.ts";

const ROLLOUTS = "output/rollouts/train/step_000001.jsonl";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sh = (script: string) => ["sh", "-c", script];

let sshd: Sshd;
let workRoot: string;
let executor: SshExecutor;
// Everything the executors said or threw, checked at the end for the private key.
const logLines: string[] = [];
const errorMessages: string[] = [];
const executors: SshExecutor[] = [];

function nodeWith(overrides: Partial<SshNode> = {}): SshNode {
  return {
    name: "test-node",
    host: "127.0.0.1",
    port: sshd.port,
    user: userInfo().username,
    privateKey: sshd.privateKey,
    workRoot,
    ...overrides,
  };
}

function newExecutor(options: SshExecutorOptions = {}, node: Partial<SshNode> = {}): SshExecutor {
  const created = new SshExecutor(nodeWith(node), {
    cancelGraceMs: 2_000,
    reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
    log: (line) => logLines.push(line),
    ...options,
  });
  executors.push(created);
  return created;
}

function spec(jobId: string, command: string[], more: Partial<LaunchSpec> = {}): LaunchSpec {
  return { jobId, attempt: 1, command, env: {}, files: {}, gpus: 0, deadlineSeconds: 600, ...more };
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error("expected a rejection");
  errorMessages.push(error.message, String(error.stack));
  return error.message;
}

// Polls state until it changes; the test's timeout, not a count of polls, bounds the wait, so a busy
// machine only makes it slower.
async function settle(handle: JobHandle, using = executor): Promise<JobObservation> {
  for (;;) {
    const observation = await using.observe(handle);
    if (observation.state !== "running") return observation;
    await sleep(50);
  }
}

/** Waits for a state of the node's files (the node is this machine). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await sleep(20);
}

/** Lets a job waiting on `awaitFile(name)` go on: the node is this machine, so its work dir is local. */
const release = (handle: JobHandle, name = "release") => writeFileSync(join(handle.workDir, name), "");
const awaitFile = (name: string) => `while [ ! -f ${name} ]; do sleep 0.02; done`;

/** Whether `pid` is a live process on this machine (the node is this machine); zombies are gone. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * A job that appends `lines` JSONL lines, one at a time: after line i it waits for the file `acks/i`,
 * which the reader writes once it has read that line. Reader and job take turns, whatever the speed.
 */
const appendLines = (lines: number) =>
  sh(`mkdir -p output/rollouts/train acks; for i in $(seq 1 ${lines}); do echo "{\\"line\\":$i}" >> ${ROLLOUTS}; ${awaitFile("acks/$i")}; done`);

/** Pulls the rollouts file by byte offset while the job runs, as ingest does; calls `onChunk` per new chunk. */
async function pullWhileRunning(handle: JobHandle, onChunk: (content: Buffer) => void = () => {}) {
  let content = Buffer.alloc(0);
  let chunks = 0;
  const pull = async () => {
    const file = (await executor.list(handle, "output")).find(({ path }) => path === ROLLOUTS);
    if (!file || file.size <= content.length) return;
    content = Buffer.concat([content, await executor.readFrom(handle, ROLLOUTS, content.length, file.size - content.length)]);
    chunks++;
    onChunk(content);
    const read = content.toString().trimEnd().split("\n").length;
    release(handle, `acks/${read}`);
  };
  let observation = await executor.observe(handle);
  while (observation.state === "running") {
    await pull();
    await sleep(20);
    observation = await executor.observe(handle);
  }
  await pull();
  const lines = content.toString().trimEnd().split("\n").map((line) => (JSON.parse(line) as { line: number }).line);
  return { observation, lines, chunks };
}

beforeAll(async () => {
  sshd = await startSshd();
  workRoot = mkdtempSync(join(tmpdir(), "evo-ssh-jobs-"));
  executor = newExecutor();
});

afterAll(async () => {
  await Promise.all(executors.map((each) => each.close()));
  await sshd?.dispose();
  rmSync(workRoot, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe("ssh executor (real OpenSSH on 127.0.0.1)", () => {
  it("runs a job detached, streams its growing output by byte offset, then reports success", async () => {
    const handle = await executor.launch(spec("stream1", appendLines(15), { files: { "job.json": '{"contract":"evo.job/v1"}' } }));
    expect(handle).toMatchObject({ executor: "ssh", workDir: join(workRoot, "stream1") });
    expect(await executor.observe(handle)).toEqual({ state: "running" });
    const { observation, lines, chunks } = await pullWhileRunning(handle);
    expect(observation).toEqual({ state: "succeeded" });
    expect(lines).toEqual(Array.from({ length: 15 }, (_, index) => index + 1));
    // The job writes a line only once the one before it was read: each line arrives as its own read.
    expect(chunks).toBe(15);
    expect(readFileSync(join(workRoot, "stream1", "job.json"), "utf8")).toBe('{"contract":"evo.job/v1"}');
  });

  it("reads long byte ranges exactly, across the reads it keeps in flight and up to the end of the file", async () => {
    const content = Buffer.from(Array.from({ length: 2_600_000 }, (_, i) => (i * 7919) % 251));
    mkdirSync(join(workRoot, "bigread", "output"), { recursive: true });
    writeFileSync(join(workRoot, "bigread", "output", "big.bin"), content);
    const handle: JobHandle = { executor: "ssh", externalId: "2", workDir: join(workRoot, "bigread") };
    expect((await executor.readFrom(handle, "output/big.bin", 100, 5_000_000)).equals(content.subarray(100))).toBe(true);
    expect((await executor.readFrom(handle, "output/big.bin", 1_048_000, 1_100_000)).equals(content.subarray(1_048_000, 2_148_000))).toBe(true);
    expect((await executor.readFrom(handle, "output/big.bin", 2_599_990, 64)).equals(content.subarray(2_599_990))).toBe(true);
    expect(await executor.readFrom(handle, "output/big.bin", 2_600_000, 64)).toHaveLength(0);
  });

  it("survives dropped SSH sessions: the job completes and the executor reconnects by itself", async () => {
    const connects = () => logLines.filter((line) => line.endsWith(": connected")).length;
    const connectsBefore = connects();
    const handle = await executor.launch(spec("drop1", appendLines(12)));
    let dropped = false;
    const { observation, lines } = await pullWhileRunning(handle, (content) => {
      if (!dropped && content.toString().split("\n").length > 3) {
        sshd.dropSessions();
        dropped = true;
      }
    });
    expect(dropped).toBe(true);
    expect(observation).toEqual({ state: "succeeded" });
    expect(lines).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    expect(connects()).toBeGreaterThan(connectsBefore);
  });

  it("reads a SIGKILL it did not send as a retriable crash naming the suspects, not as OOM", async () => {
    const handle = await executor.launch(spec("killed1", sh("kill -9 $$")));
    expect(await settle(handle)).toMatchObject({ state: "failed", exitCode: 137, failureClass: "crash", retriable: true, message: expect.stringMatching(/^killed by SIGKILL, not by EvoTrainer: the kernel's out-of-memory killer or another process/) });
  });

  it("reads a CUDA out-of-memory error in the log as gpu_oom, not retriable", async () => {
    const line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB";
    const handle = await executor.launch(spec("gpuoom1", sh(`echo 'Traceback (most recent call last):'; echo '${line}' >&2; exit 1`)));
    expect(await settle(handle)).toMatchObject({ state: "failed", exitCode: 1, failureClass: "gpu_oom", retriable: false, message: line });
  });

  it.each([
    [2, "config_error", false],
    [3, "data_error", false],
    [75, "preempted", true],
    [1, "crash", true],
  ] as const)("classifies exit code %i as %s (retriable: %s)", async (code, failureClass, retriable) => {
    const handle = await executor.launch(spec(`exit${code}`, sh(`echo boom; exit ${code}`)));
    expect(await settle(handle)).toMatchObject({ state: "failed", exitCode: code, failureClass, retriable });
  });

  it("prefers the failure class and message the trainer wrote to status.json", async () => {
    const status = JSON.stringify({ state: "failed", exitCode: 1, failureClass: "oom", lastStep: 2, message: "host memory exhausted while packing" });
    const handle = await executor.launch(spec("status1", sh(`printf '%s' '${status}' > output/status.json; exit 1`)));
    expect(await settle(handle)).toMatchObject({ exitCode: 1, failureClass: "oom", retriable: true, message: "host memory exhausted while packing" });
  });

  it("passes arguments and environment through the remote shell literally", async () => {
    const tricky = `it's "quoted" $HOME \`id\` ; & |`;
    const handle = await executor.launch(
      spec("env1", ["sh", "-c", 'printf "%s|%s|%s|%s" "$1" "$WEIRD" "$CUDA_VISIBLE_DEVICES" "$EVO_JOB_DIR" > seen', "sh", tricky], {
        env: { WEIRD: tricky },
        gpus: 2,
      }),
    );
    expect(await settle(handle)).toEqual({ state: "succeeded" });
    expect((await executor.readFrom(handle, "seen", 0, 1_000)).toString()).toBe(`${tricky}|${tricky}|0,1|${handle.workDir}`);

    const chosen = await executor.launch(spec("env2", sh('printf "%s" "$CUDA_VISIBLE_DEVICES" > seen'), { env: { CUDA_VISIBLE_DEVICES: "3" }, gpus: 1 }));
    await settle(chosen);
    expect((await executor.readFrom(chosen, "seen", 0, 100)).toString()).toBe("3");
  });

  it("cancels the whole process group, children included", async () => {
    const handle = await executor.launch(spec("cancel1", sh("sleep 30 & echo $! > child.pid; sleep 30")));
    let childPid = NaN;
    while (!(childPid > 0)) {
      await sleep(20);
      childPid = Number((await executor.readFrom(handle, "child.pid", 0, 100)).toString().trim() || NaN);
    }
    expect(await executor.observe(handle)).toEqual({ state: "running" });
    expect(alive(childPid)).toBe(true);
    await executor.cancel(handle);
    expect(await settle(handle)).toEqual({ state: "cancelled" });
    expect(alive(childPid)).toBe(false);
    expect(alive(Number(handle.externalId))).toBe(false);
  });

  it("adopts an attempt that is already running instead of starting it twice, and relaunches a retry", async () => {
    const gated = sh(`echo started >> starts; ${awaitFile("release")}; exit 75`);
    const first = await executor.launch(spec("adopt1", gated));
    const again = await newExecutor().launch(spec("adopt1", gated));
    expect(again).toEqual(first);
    release(first);
    expect(await settle(first)).toMatchObject({ failureClass: "preempted", retriable: true });
    const retry = await executor.launch(spec("adopt1", sh("echo started >> starts"), { attempt: 2 }));
    expect(retry.externalId).not.toBe(first.externalId);
    expect(await settle(retry)).toEqual({ state: "succeeded" });
    expect((await executor.readFrom(retry, "starts", 0, 100)).toString()).toBe("started\nstarted\n");
  });

  it("reports the attempt's own start and end by the node's clock: the wrapper's start marker and exit record", async () => {
    const handle = await executor.launch(spec("times1", sh(awaitFile("release"))));
    await until(() => existsSync(join(handle.workDir, "started")));
    const running = (await executor.times(handle))!;
    expect(running.endedAt).toBeNull();
    expect(Date.parse(running.now)).toBeGreaterThanOrEqual(Date.parse(running.startedAt));
    release(handle);
    expect(await settle(handle)).toEqual({ state: "succeeded" });
    const ended = (await executor.times(handle))!;
    // GNU stat gives the mtimes in nanoseconds; they arrive to the millisecond.
    const ms = (name: string) => Math.floor(statSync(join(handle.workDir, name)).mtimeMs);
    expect([Date.parse(ended.startedAt), Date.parse(ended.endedAt!)]).toEqual([ms("started"), ms("exit_code")]);
    expect(ended.startedAt).toBe(running.startedAt);
    // A job directory left by a wrapper without the start marker has no times to report.
    rmSync(join(handle.workDir, "started"));
    expect(await executor.times(handle)).toBeNull();
  });

  it("finds a job's model weights over SFTP with their sizes and deletes them on the node, leaving everything else", async () => {
    const output = join(workRoot, "weights1", "output");
    const put = (relative: string, bytes: number) => {
      mkdirSync(join(output, relative, ".."), { recursive: true });
      writeFileSync(join(output, relative), Buffer.alloc(bytes));
    };
    put("checkpoints/policy_step_4.json", 40);
    put("trl/final/model.safetensors", 1000);
    put("trl/checkpoint-2/model.safetensors", 500);
    put("trl/checkpoint-2/optimizer/state.pt", 250);
    put("verl/checkpoints/global_step_2/actor/model.pt", 2000);
    put("metrics.jsonl", 3);
    // A link to a shared base model counts as the link; its target is neither followed nor deleted.
    const base = join(workRoot, "base-model");
    mkdirSync(base);
    writeFileSync(join(base, "model.safetensors"), Buffer.alloc(100_000));
    symlinkSync(base, join(output, "trl/final/base"));

    const place = executor.weightsPlace(join(workRoot, "weights1"));
    const found = await weightsIn(place.files, place.outputDir);
    expect(found.map(({ path, bytes }) => [path.slice(output.length + 1), bytes])).toEqual([
      ["checkpoints", 40],
      ["trl/final", 1000 + base.length],
      ["trl/checkpoint-2", 750],
      ["verl/checkpoints", 2000],
    ]);
    for (const { path } of found) await place.files.remove(path);
    expect(await weightsIn(place.files, place.outputDir)).toEqual([]);
    expect(existsSync(join(output, "metrics.jsonl"))).toBe(true);
    expect(existsSync(join(base, "model.safetensors"))).toBe(true);
    // Nothing outside the node's work root is reached.
    expect(() => executor.weightsPlace("/etc")).toThrow(/not a job directory under/);
  });

  it("refuses job ids and paths that would escape the job directory", async () => {
    expect(() => executor.workDirFor("../etc")).toThrow(/not a safe directory name/);
    expect(await rejection(executor.launch(spec("esc1", sh("true"), { files: { "../x": "" } })))).toMatch(/outside the job directory/);
    expect(await rejection(executor.launch(spec("esc2", sh("true"), { files: { "/tmp/x": "" } })))).toMatch(/outside the job directory/);
    const handle = { executor: "ssh" as const, externalId: "12345", workDir: join(workRoot, "esc1") };
    expect(await rejection(executor.readFrom(handle, "../../etc/passwd", 0, 10))).toMatch(/outside the job directory/);
    expect(await rejection(executor.list(handle, ".."))).toMatch(/outside the job directory/);
  });

  it("says which node failed and what to check when the key is refused or unreadable", async () => {
    const other = join(workRoot, "other_key");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", other]);
    const refused = await rejection(newExecutor({}, { privateKey: readFileSync(other, "utf8") }).launch(spec("key1", sh("true"))));
    expect(refused).toMatch(/ssh node "test-node" \(.*@127\.0\.0\.1:\d+\) unreachable: the server refused the key/);
    const garbage = `-----BEGIN OPENSSH PRIVATE KEY-----\n${"c2VjcmV0LXNlY3JldC1zZWNyZXQ".repeat(3)}\n-----END OPENSSH PRIVATE KEY-----\n`;
    const unreadable = await rejection(newExecutor({}, { privateKey: garbage }).launch(spec("key2", sh("true"))));
    expect(unreadable).toMatch(/private key could not be used/);
    expect(unreadable).not.toContain("c2VjcmV0");
  });

  it("keeps a job running while its node is unreachable, calls it lost after a while, and reads its fate on reconnect", async () => {
    const watcher = newExecutor({ nodeLostAfterMs: 1_000 });
    const handle = await watcher.launch(spec("lost1", sh(`${awaitFile("release")}; echo done > done`)));
    await sshd.stop();
    expect(await watcher.observe(handle)).toEqual({ state: "running" });
    expect(await rejection(watcher.readFrom(handle, "done", 0, 10))).toMatch(
      /ssh node "test-node" \(.*@127\.0\.0\.1:\d+\) unreachable: connection refused: check that sshd runs/,
    );
    let lost = await watcher.observe(handle);
    while (lost.state === "running") {
      await sleep(50);
      lost = await watcher.observe(handle);
    }
    expect(lost).toMatchObject({ state: "failed", exitCode: null, failureClass: "node_lost", retriable: true });
    errorMessages.push(lost.state === "failed" ? lost.message : "");
    // The job ends while the node is unreachable.
    release(handle);
    while (!existsSync(join(handle.workDir, "exit_code"))) await sleep(20);
    await sshd.start();
    let observation: JobObservation = lost;
    while (observation.state !== "succeeded") {
      await sleep(50);
      observation = await watcher.observe(handle);
    }
    expect(observation).toEqual({ state: "succeeded" });
    expect((await watcher.readFrom(handle, "done", 0, 10)).toString()).toBe("done\n");
  });

  it("never puts the private key into a log line or an error message", () => {
    const keyLines = sshd.privateKey.split("\n").filter((line) => line.length >= 16 && !line.startsWith("-----"));
    expect(keyLines.length).toBeGreaterThan(0);
    expect(logLines.length).toBeGreaterThan(0);
    expect(errorMessages.length).toBeGreaterThan(5);
    for (const text of [...logLines, ...errorMessages]) {
      for (const keyLine of keyLines) expect(text).not.toContain(keyLine);
    }
  });
});
