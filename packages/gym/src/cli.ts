// `tsx packages/gym/src/cli.ts path/to/job.json`: runs one evo.job/v1 job and exits with the contract's code.
import { runGymJob } from "./trainer.ts";

const jobFile = process.argv[2];
if (jobFile === undefined || process.argv.length > 3 || jobFile === "--help") {
  process.stderr.write("usage: evotrainer-gym <job.json>\n");
  process.exit(2);
}

// SIGTERM is how executors (Kubernetes, ssh) preempt: finish the step, keep the checkpoint, exit 75.
const preempt = new AbortController();
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => preempt.abort());

const result = await runGymJob(jobFile, { signal: preempt.signal, log: (line) => process.stdout.write(`${line}\n`) });
process.exitCode = result.exitCode;
