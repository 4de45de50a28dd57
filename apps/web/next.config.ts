import type { NextConfig } from "next";
import { NON_PAGE_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from "./src/lib/security-headers.ts";

const config: NextConfig = {
  // Workspace packages ship TypeScript source.
  transpilePackages: ["@evotrainer/api", "@evotrainer/db", "@evotrainer/queue"],
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "ioredis", "bullmq"],
  typescript: { tsconfigPath: "tsconfig.json" },
  poweredByHeader: false,
  // Pages get their policy, with a fresh nonce, from the proxy (src/proxy.ts).
  headers: async () => [
    { source: "/:path*", headers: SECURITY_HEADERS },
    { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: NON_PAGE_CONTENT_SECURITY_POLICY }] },
    { source: "/_next/:path*", headers: [{ key: "Content-Security-Policy", value: NON_PAGE_CONTENT_SECURITY_POLICY }] },
  ],
};

export default config;
