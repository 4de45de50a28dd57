import pg from "pg";

/** Creates the database named in `databaseUrl` if the server lacks it; returns whether it did. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  // A connection the server ends while idle emits 'error'; the next query reports it instead.
  client.on("error", () => {});
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    return true;
  } finally {
    await client.end();
  }
}
