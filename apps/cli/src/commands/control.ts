import { onLocalApi } from "../cli-caller.ts";
import { remoteCredentials } from "../remote/credentials.ts";
import { onServer } from "../remote/remote-api.ts";

type Control = "pause" | "resume" | "stop" | "extend-budget" | "cancel-job";
// `id` is the run, or the job for cancel-job.
type Input = { id: string; sealed?: boolean; gpuSeconds?: number };
type Answer = { status?: string; changed: boolean; message: string | null };

const USAGE: Record<Control, string> = {
  pause: "evotrainer pause <runId>",
  resume: "evotrainer resume <runId>",
  stop: "evotrainer stop <runId> [--skip-sealed]",
  "extend-budget": "evotrainer extend-budget <runId> <total GPU-seconds>",
  "cancel-job": "evotrainer cancel-job <jobId> (the branch page lists a branch's jobs)",
};

function inputOf(control: Control, args: string[]): Input {
  const [id, total] = args.filter((a) => !a.startsWith("--"));
  if (!id) throw new Error(`usage: ${USAGE[control]}`);
  if (control === "stop") return { id, sealed: !args.includes("--skip-sealed") };
  if (control === "extend-budget") {
    const gpuSeconds = Number(total);
    if (!total || !Number.isFinite(gpuSeconds) || gpuSeconds <= 0) throw new Error(`usage: ${USAGE[control]} (the new total, not an increment)`);
    return { id, gpuSeconds };
  }
  return { id };
}

function line(control: Control, id: string, answer: Answer, server: string | null): string {
  const where = server ? ` on ${server}` : "";
  const what = control === "cancel-job" ? `job ${id}` : `run ${id}`;
  if (!answer.changed) return `evotrainer: ${what}${where}: ${answer.message}; nothing changed`;
  if (control === "cancel-job") return `evotrainer: ${what}${where} is being cancelled through its executor; its branch is cancelled and the round goes on`;
  const done: Record<Exclude<Control, "cancel-job">, string> = {
    pause: "paused: running jobs finish, no new job starts",
    resume: "resumed",
    stop: "stopping: its jobs are being cancelled",
    "extend-budget": "budget extended",
  };
  return `evotrainer: ${what}${where} ${done[control]} (status ${answer.status})`;
}

/**
 * `evotrainer pause|resume|stop|extend-budget <runId> …` and `evotrainer cancel-job <jobId>`: the run controls, through the same API
 * procedures as the dashboard (approver or admin), locally or on the server the CLI is logged in to.
 */
export async function controlCommand(control: Control, args: string[]): Promise<number> {
  const input = inputOf(control, args);
  const remote = remoteCredentials();
  if (remote) {
    const answer = await onServer(remote, (api) =>
      control === "pause" ? api.runControl.pause.mutate({ runId: input.id })
      : control === "resume" ? api.runControl.resume.mutate({ runId: input.id })
      : control === "stop" ? api.runControl.stop.mutate({ runId: input.id, sealed: input.sealed! })
      : control === "cancel-job" ? api.runControl.cancelJob.mutate({ jobId: input.id })
      : api.runControl.extendBudget.mutate({ runId: input.id, gpuSeconds: input.gpuSeconds! }),
    );
    console.log(line(control, input.id, answer, remote.server));
    return 0;
  }
  const answer = await onLocalApi(control, (api) =>
    control === "pause" ? api.runControl.pause({ runId: input.id })
    : control === "resume" ? api.runControl.resume({ runId: input.id })
    : control === "stop" ? api.runControl.stop({ runId: input.id, sealed: input.sealed! })
    : control === "cancel-job" ? api.runControl.cancelJob({ jobId: input.id })
    : api.runControl.extendBudget({ runId: input.id, gpuSeconds: input.gpuSeconds! }),
  );
  console.log(line(control, input.id, answer, null));
  return 0;
}
