// Keys under which the CLI records where a team's files live on its own machines (an import's
// directory, an ingested file). A share link sees what was imported, never from where.
const LOCAL_PATH_KEYS = new Set(["dir", "path", "file", "files"]);

/** An event payload as a share link may see it: local paths removed at any depth. */
export function sharedEventPayload(payload: unknown): unknown {
  if (Array.isArray(payload)) return payload.map(sharedEventPayload);
  if (payload === null || typeof payload !== "object") return payload;
  return Object.fromEntries(Object.entries(payload).filter(([k]) => !LOCAL_PATH_KEYS.has(k)).map(([k, v]) => [k, sharedEventPayload(v)]));
}
