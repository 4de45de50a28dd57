import { NextResponse, type NextRequest } from "next/server";
import { getSessionCookie } from "better-auth/cookies";
import { pageContentSecurityPolicy } from "~/lib/security-headers";
import { sessionCookieIsSigned } from "~/server/session-cookie";

/**
 * Every page gets a Content-Security-Policy with a nonce of its own; Next.js reads the policy from
 * the request headers and puts the nonce on the scripts it renders.
 *
 * Sends visitors without a session cookie to /sign-in. The cookie is only checked for presence
 * here, and that it carries this server's signature; pages and the API verify the session itself.
 * Share, invitation and password-reset pages carry their own token.
 */
export async function proxy(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID());
  const policy = pageContentSecurityPolicy(nonce, process.env.NODE_ENV === "development");
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("Content-Security-Policy", policy);
  const response = await route(request, requestHeaders);
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

async function route(request: NextRequest, requestHeaders: Headers): Promise<NextResponse> {
  const { pathname, search } = request.nextUrl;
  // Invitation and password-reset links carry their own token, checked by their pages and procedures.
  if (pathname.startsWith("/share/") || pathname.startsWith("/invite/") || pathname.startsWith("/reset-password/") || pathname === "/sign-in") return NextResponse.next({ request: { headers: requestHeaders } });
  const cookie = getSessionCookie(request);
  if (cookie && (await sessionCookieIsSigned(cookie))) return NextResponse.next({ request: { headers: requestHeaders } });
  const url = new URL("/sign-in", request.url);
  if (pathname !== "/") url.searchParams.set("next", `${pathname}${search}`);
  return NextResponse.redirect(url);
}

export const config = {
  // API routes answer 401 themselves; static assets need no session.
  matcher: ["/((?!api/|_next/|favicon.ico).*)"],
};
