import pg from "pg";

export interface ServiceCheck {
  ok: boolean;
  /** What went wrong and how to fix it; absent when ok. */
  error?: string;
  /** The driver's own words for what went wrong (ECONNREFUSED…), for a one-line status; absent when ok. */
  reason?: string;
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@");
}

/** Opens one connection and runs `SELECT 1`, with a short timeout, and says how to fix a failure. */
export async function pingPostgres(databaseUrl: string, timeoutMs = 2_000): Promise<ServiceCheck> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  // The failure is the connect's or the query's to report; an 'error' event unheard would end the process.
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return { ok: true };
  } catch (error) {
    const reason = error instanceof Error ? error.message || error.name : String(error);
    return {
      ok: false,
      reason,
      error:
        `PostgreSQL is unreachable at ${redact(databaseUrl)} (${reason}). ` +
        "Start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, " +
        "or `docker compose up -d postgres`, or point DATABASE_URL at a running server.",
    };
  } finally {
    await client.end().catch(() => {});
  }
}
