export * from "./connections.ts";
export * from "./env.ts";
export * from "./payloads.ts";
export * from "./producer.ts";
export * from "./queue-names.ts";
export * from "./ping.ts";
