/**
 * The page policy. Next.js bootstraps with inline scripts and then inserts its chunks from them,
 * so scripts run by nonce, and 'strict-dynamic' lets the nonced ones load the rest. Styles keep
 * 'unsafe-inline': React, React Flow and Recharts write style attributes, which no nonce covers.
 */
export function pageContentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    // React's development build evaluates code to rebuild server stacks; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** API answers and static files are never documents to render or frame. */
export const NON_PAGE_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** On every response, pages, API and static files alike. */
export const SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Share links carry their token in the URL: no page hands its URL to another site.
  { key: "Referrer-Policy", value: "no-referrer" },
];
