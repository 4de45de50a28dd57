import { randomUUID } from "node:crypto";
import { toNextJsHandler } from "better-auth/next-js";
import { env } from "~/env";
import { crossSiteWrite } from "~/lib/same-origin";
import { getAuth } from "~/server/auth";
import { withBodyLimit } from "~/server/body-limit";
import { forbidden, internalError } from "~/server/http-errors";

export const dynamic = "force-dynamic";

/**
 * The session token lives in an HttpOnly cookie; a copy in a JSON body is readable by any script
 * on the page. Nothing in the dashboard needs it, so it is removed from every answer.
 */
function withoutTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTokens);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "token")
      .map(([key, v]) => [key, withoutTokens(v)]),
  );
}

/** Sign-in, password changes and admin calls are small; anything bigger is refused before it is parsed. */
const AUTH_BODY_LIMIT_BYTES = 64 * 1024;

async function handle(incoming: Request, method: "GET" | "POST"): Promise<Response> {
  const refused = crossSiteWrite(incoming.method, incoming.headers, env.BETTER_AUTH_URL);
  if (refused) return forbidden(`cross-site request refused: ${refused}`);
  const req = await withBodyLimit(incoming, AUTH_BODY_LIMIT_BYTES);
  if (req instanceof Response) return req;
  const requestId = randomUUID();
  let response: Response;
  try {
    response = await toNextJsHandler(getAuth(req.headers))[method](req);
  } catch (error) {
    console.error(`auth ${new URL(req.url).pathname} [${requestId}]`, error);
    return internalError(requestId);
  }
  if (response.status >= 500) {
    console.error(`auth ${new URL(req.url).pathname} [${requestId}] ${response.status}: ${await response.text()}`);
    return internalError(requestId);
  }
  if (!response.headers.get("content-type")?.includes("application/json")) return response;
  // Refusals (401 from an admin endpoint without a session) may come with no body at all.
  const text = await response.text();
  if (!text) return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
  const body = withoutTokens(JSON.parse(text));
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers });
}

export const GET = (req: Request) => handle(req, "GET");
export const POST = (req: Request) => handle(req, "POST");
