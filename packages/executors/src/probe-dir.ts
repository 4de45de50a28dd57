import type { ProbeSpec } from "./executor.ts";

/** Files of a probe's directory the executor itself writes, beside the probe's own `files`. */
export const probeFiles = { stdin: "stdin", stdout: "stdout", stderr: "stderr", exitCode: "exit_code" } as const;

// `$0` is the probe's directory, `"$@"` its command; exec so the command's exit code is the shell's.
export const PROBE_SCRIPT = `cd "$0" && exec "$@"`;

/** The probe's id, checked: it becomes a directory name, a shell word and part of a Kubernetes Job's name. */
export function checkProbe(spec: ProbeSpec): ProbeSpec {
  if (!/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/.test(spec.id)) throw new Error(`probe id "${spec.id}" is not lowercase letters, digits and dashes (at most 40)`);
  if (spec.command.length === 0) throw new Error(`probe ${spec.id}: the command is empty`);
  for (const name of Object.keys(spec.files)) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.startsWith(".") || Object.values(probeFiles).includes(name as never)) {
      throw new Error(`probe ${spec.id}: "${name}" cannot be a file of its directory`);
    }
  }
  return spec;
}

/** The error of a probe that gave no answer in time. */
export function probeTimedOut(where: string, spec: ProbeSpec, detail = ""): Error {
  return new Error(`${where}: the check did not answer within ${spec.timeoutSeconds} s${detail ? ` (${detail})` : ""}`);
}
