import type { NextConfig } from "next";

const config: NextConfig = {
  // Workspace packages ship TypeScript source.
  transpilePackages: ["@evotrainer/api", "@evotrainer/db", "@evotrainer/queue"],
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "ioredis", "bullmq"],
  typescript: { tsconfigPath: "tsconfig.json" },
  poweredByHeader: false,
};

export default config;
