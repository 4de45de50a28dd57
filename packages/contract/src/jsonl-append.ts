import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Appends values as JSON lines in one write. Every line ends with "\n" as it is written, which is
 * what tells a tailing reader the line is complete; a reader never acts on text without one.
 */
export async function appendJsonLines(file: string, values: readonly unknown[]): Promise<void> {
  if (values.length === 0) return;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, values.map((value) => `${JSON.stringify(value)}\n`).join(""), "utf8");
}
