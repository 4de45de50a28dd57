export { createPgPool, statusOfPool, type PgPoolOptions } from "./pg-pool.ts";
export { postgresStatus } from "./postgres-status.ts";
export { whileUnreachable } from "./while-unreachable.ts";
export { untilPostgresAnswers } from "./until-postgres-answers.ts";
