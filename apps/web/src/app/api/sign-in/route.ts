import { toNextJsHandler } from "better-auth/next-js";
import { env } from "~/env";
import { safeRedirectPath } from "~/lib/safe-redirect";
import { crossSiteWrite, siteOrigin } from "~/lib/same-origin";
import type { SignInError } from "~/lib/sign-in-errors";
import { getAuth } from "~/server/auth";
import { forbidden } from "~/server/http-errors";

export const dynamic = "force-dynamic";

/**
 * The sign-in form's own target when the page's script has not run (scripts off, or a submit before
 * hydration): the form posts here, never as a GET that would put the password in the URL. The
 * credentials go through the auth handler as the script's request would, so the per-address rate
 * limit and the account lockout apply alike; the answer is a redirect, with the session cookie on success.
 */
export async function POST(req: Request): Promise<Response> {
  const refused = crossSiteWrite(req.method, req.headers, env.BETTER_AUTH_URL);
  if (refused) return forbidden(`cross-site request refused: ${refused}`);
  const form = await req.formData().catch(() => null);
  const field = (name: string) => {
    const value = form?.get(name);
    return typeof value === "string" ? value : "";
  };
  const next = safeRedirectPath(field("next"));
  const headers = new Headers(req.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  // The form's post may carry `Origin: null` (no-referrer); checked above, it goes on with the site's own origin, as the script's request would.
  const origin = siteOrigin(req.headers, env.BETTER_AUTH_URL);
  if (origin) headers.set("origin", origin);
  const answer = await toNextJsHandler(getAuth(req.headers)).POST(
    new Request(new URL("/api/auth/sign-in/email", req.url), { method: "POST", headers, body: JSON.stringify({ email: field("email"), password: field("password") }) }),
  );
  if (answer.ok) {
    const redirect = new Headers({ location: next });
    for (const cookie of answer.headers.getSetCookie()) redirect.append("set-cookie", cookie);
    return new Response(null, { status: 303, headers: redirect });
  }
  const error: SignInError = answer.status === 429 ? "locked" : answer.status === 401 || answer.status === 400 ? "invalid" : "failed";
  const back = new URLSearchParams({ error, next });
  return new Response(null, { status: 303, headers: { location: `/sign-in?${back}` } });
}

