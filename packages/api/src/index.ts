import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "./root.ts";

export { appRouter, type AppRouter } from "./root.ts";
export { createContext, createCallerFactory, type Context, type ContextDeps } from "./trpc.ts";
export { NO_PASSWORD_GUARD, redisPasswordGuard, type PasswordGuard } from "./auth/password-guard.ts";
export { TRPC_BODY_LIMIT_BYTES } from "./input/body-limit.ts";
export { hashPassword, verifyPassword } from "./auth/password.ts";
export { createLocalUser, ensureLocalAdmin, LOCAL_ADMIN_EMAIL, type LocalAdminLogin } from "./auth/ensure-local-admin.ts";
export { sha256Hex } from "./auth/secret-token.ts";
export { SHARE_TOKEN_HEADER, principalFromShareToken } from "./auth/resolve-principal.ts";
export type { Principal } from "./auth/principal.ts";

export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export { runListInput, type RunListInput } from "./routers/run.ts";
export { truthLineSchema, type TruthLine } from "./routers/label-review.ts";
