import { appRouter, createCallerFactory, createContext, LOCAL_ADMIN_EMAIL } from "@evotrainer/api";
import type { Database } from "@evotrainer/db";
import type { Producer } from "@evotrainer/queue";

/**
 * The API as the CLI calls it: in-process, through the same procedures, roles and writers as the
 * dashboard. The caller is the owner of `EVO_API_KEY` when it is set; otherwise the installation's
 * local admin, the account an operator with shell access to the control plane already holds.
 */
export async function cliCaller(db: Database, producer: () => Producer, apiKey: string | undefined) {
  const headers = new Headers(apiKey ? { authorization: `Bearer ${apiKey}` } : {});
  const admin = apiKey ? null : await db.user.findUnique({ where: { email: LOCAL_ADMIN_EMAIL }, select: { id: true } });
  if (!apiKey && !admin) {
    throw new Error("no account to act as: set EVO_API_KEY to an API key (dashboard → Settings → API keys), or run `npm run quickstart` once to create the local admin");
  }
  return createCallerFactory(appRouter)(createContext({ db, headers, producer, sessionUserId: async () => admin?.id ?? null }));
}
