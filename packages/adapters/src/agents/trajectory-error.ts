/** A trajectory whose shape an importer does not know: the import quarantines it with this reason at its file and line. */
export class TrajectoryShapeError extends Error {
  override name = "TrajectoryShapeError";
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The keys of `record` not in `known`, as they are: what the schema cannot hold goes to `extra`. */
export function unknownFields(record: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !known.has(key)));
}
