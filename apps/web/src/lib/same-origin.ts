/** The site's origin: the configured public URL when there is one, else as this request addressed the server. */
export function siteOrigin(headers: Headers, configuredUrl: string | undefined): string | null {
  if (configuredUrl) return new URL(configuredUrl).origin;
  // The server boundary (server.ts) rewrote the x-forwarded-* headers: they are what a trusted proxy or the socket said.
  const host = headers.get("x-forwarded-host") ?? headers.get("host");
  return host ? `${headers.get("x-forwarded-proto") === "https" ? "https" : "http"}://${host}` : null;
}

/**
 * Why a state-changing request must be refused as cross-site, or null. Browsers send `Origin` on
 * every POST; a request with cookies but no `Origin` is not one a page of this site made. Callers
 * without cookies (the CLI with an API key) carry no ambient credential and pass.
 */
export function crossSiteWrite(method: string, headers: Headers, configuredUrl: string | undefined): string | null {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return null;
  const origin = headers.get("origin");
  if (origin === null) return headers.has("cookie") ? "a request with cookies and no Origin header" : null;
  // Our pages send Referrer-Policy: no-referrer, under which a browser's own form post (the sign-in
  // form with scripts off) carries `Origin: null`. Sec-Fetch-Site is set by the browser alone and says
  // whether the request came from this origin; a cross-site form or a redirect through another site says otherwise.
  if (origin === "null" && headers.get("sec-fetch-site") === "same-origin") return null;
  const expected = siteOrigin(headers, configuredUrl);
  return origin === expected ? null : `Origin ${origin} is not ${expected ?? "this site"}`;
}
