/** The `sinfo` format the nodes page reads: partition, availability, time limit, nodes, state, CPUs (A/I/O/T), GRES. */
export const SINFO_FORMAT = "%R|%a|%l|%D|%T|%C|%G";

/** One row of `sinfo`: the nodes of a partition that are in one state. */
export interface SinfoRow {
  partition: string;
  available: boolean;
  timeLimit: string;
  nodes: number;
  state: string;
  cpus: { allocated: number; idle: number; other: number; total: number };
  /** `null` where the partition's nodes have none (sinfo's `(null)`). */
  gres: string | null;
}

/** `sinfo -h -o SINFO_FORMAT` as rows; a line of another shape is an error naming its number. */
export function parseSinfo(output: string): SinfoRow[] {
  return output
    .split("\n")
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== "")
    .map(({ line, number }) => {
      const fields = line.split("|");
      const cpus = (fields[5] ?? "").split("/").map(Number);
      if (fields.length !== 7 || cpus.length !== 4 || cpus.some((n) => !Number.isInteger(n)) || !/^\d+$/.test(fields[3]!)) {
        throw new Error(`sinfo output line ${number} is not "${SINFO_FORMAT}": ${line}`);
      }
      const [partition, available, timeLimit, nodes, state, , gres] = fields as [string, string, string, string, string, string, string];
      return {
        partition,
        available: available === "up",
        timeLimit,
        nodes: Number(nodes),
        state,
        cpus: { allocated: cpus[0]!, idle: cpus[1]!, other: cpus[2]!, total: cpus[3]! },
        gres: gres === "(null)" ? null : gres,
      };
    });
}
