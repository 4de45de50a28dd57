export * from "./connections.ts";
export * from "./env.ts";
export * from "./payloads.ts";
export * from "./producer.ts";
export * from "./queue-names.ts";
export * from "./ping.ts";
export * from "./ask-workers.ts";
export * from "./trainer-args-answer.ts";
