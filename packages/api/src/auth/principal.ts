/** Who is calling: a person (by session or API key) or the holder of a run's share link. */
export type Principal =
  | { kind: "user"; userId: string; via: "session" | "api_key" }
  | { kind: "share"; runId: string; shareLinkId: string };
