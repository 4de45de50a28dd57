/**
 * One field of a CSV line for `COPY … (FORMAT csv)`: null as an unquoted empty field (SQL NULL),
 * everything else quoted with inner quotes doubled, objects as JSON text for jsonb columns.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `"${text.replaceAll('"', '""')}"`;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(",")}\n`;
}
