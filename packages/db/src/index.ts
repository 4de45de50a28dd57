export * from "./client.ts";
export * from "./env.ts";
export * from "./generated/prisma/client.ts";
export * from "./ping.ts";
export * from "./repositories/index.ts";
