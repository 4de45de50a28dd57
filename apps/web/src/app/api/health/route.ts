import { pingPostgres } from "@evotrainer/db";
import { pingRedis } from "@evotrainer/queue";
import { env } from "~/env";

export const dynamic = "force-dynamic";

/** 200 `{"postgres":"ok","redis":"ok"}` when both answer; 503 naming the one that does not and how to fix it. */
export async function GET(): Promise<Response> {
  const [postgres, redis] = await Promise.all([pingPostgres(env.DATABASE_URL), pingRedis(env.REDIS_URL)]);
  const body = {
    postgres: postgres.ok ? "ok" : "unreachable",
    redis: redis.ok ? "ok" : "unreachable",
    ...(postgres.ok && redis.ok ? {} : { errors: [postgres.error, redis.error].filter(Boolean) }),
  };
  return Response.json(body, { status: postgres.ok && redis.ok ? 200 : 503, headers: { "Cache-Control": "no-store" } });
}
