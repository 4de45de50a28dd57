import { NextResponse, type NextRequest } from "next/server";
import { getSessionCookie } from "better-auth/cookies";

/**
 * Sends visitors without a session cookie to /sign-in. The cookie is only checked for presence
 * here; pages and the API verify the session itself. Share pages carry their own token.
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (pathname.startsWith("/share/")) {
    const response = NextResponse.next();
    response.headers.set("Referrer-Policy", "no-referrer");
    return response;
  }
  if (pathname === "/sign-in" || getSessionCookie(request)) return NextResponse.next();
  const url = new URL("/sign-in", request.url);
  if (pathname !== "/") url.searchParams.set("next", `${pathname}${search}`);
  return NextResponse.redirect(url);
}

export const config = {
  // API routes answer 401 themselves; static assets need no session.
  matcher: ["/((?!api/|_next/|favicon.ico).*)"],
};
