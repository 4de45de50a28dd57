import { parquetWriteFile } from "hyparquet-writer";

/**
 * Writes rows the way TRL's GRPOTrainer.log does with pandas: `step` as a string column
 * (`[str(global_step)] * n`), `prompt` and `completion` strings, one DOUBLE column per reward
 * function, then `advantage`. For tests only (hyparquet-writer is a dev dependency).
 */
export function writeTrlCompletionsParquet(
  filename: string,
  step: number,
  rows: readonly { prompt: string; completion: string; rewards: Record<string, number | null>; advantage: number }[],
): void {
  const rewardNames = Object.keys(rows[0]?.rewards ?? {});
  parquetWriteFile({
    filename,
    columnData: [
      { name: "step", data: rows.map(() => String(step)), type: "STRING" },
      { name: "prompt", data: rows.map((r) => r.prompt), type: "STRING" },
      { name: "completion", data: rows.map((r) => r.completion), type: "STRING" },
      ...rewardNames.map((name) => ({ name, data: rows.map((r) => r.rewards[name] ?? null), type: "DOUBLE" as const, nullable: true })),
      { name: "advantage", data: rows.map((r) => r.advantage), type: "DOUBLE" },
    ],
  });
}
