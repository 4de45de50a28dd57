/**
 * What `scontrol show job -o <id>` says of one job: its `Key=Value` fields. A value may hold spaces
 * (a Comment, a Command with arguments), so a field ends only where the next `Key=` begins; keys
 * are letters with `/` and `:` inside (`CPUs/Task`, `AllocNode:Sid`).
 */
export type ScontrolJob = Readonly<Record<string, string>>;

const FIELD_START = /(?:^|\s)([A-Za-z][A-Za-z0-9_]*(?:[/:][A-Za-z0-9_]+)*)=/g;

/** The fields of the first job in `output`; `null` when it names none (the id is unknown to Slurm). */
export function parseScontrolJob(output: string): ScontrolJob | null {
  const line = output.split("\n").find((candidate) => candidate.startsWith("JobId="));
  if (line === undefined) return null;
  const starts = [...line.matchAll(FIELD_START)].map((match) => ({ key: match[1]!, valueAt: match.index + match[0].length }));
  const fields: Record<string, string> = {};
  starts.forEach(({ key, valueAt }, i) => {
    const next = starts[i + 1];
    const end = next ? next.valueAt - next.key.length - 1 : line.length;
    fields[key] = line.slice(valueAt, end).trim();
  });
  return fields;
}

/** Whether scontrol's error says that the controller does not know the id (purged after MinJobAge, or never was). */
export function isUnknownJob(stderr: string): boolean {
  return /Invalid job id specified/i.test(stderr);
}

/** Whether scontrol's error says that slurmctld could not be reached (down, restarting, network). */
export function isControllerUnreachable(stderr: string): boolean {
  return /Unable to contact slurm controller|Socket timed out|Connection refused|Zero Bytes were transmitted/i.test(stderr);
}
