/**
 * Where a password was checked. An invitation is a second door to the same password: a stranger can
 * open it (any organization admin can invite any email), so what happens there never counts at sign-in.
 */
export type PasswordDoor = "sign-in" | "invitation";

/** One wrong password for one account: which client sent it, through which door, when (ms since the epoch). */
export interface PasswordFailure {
  client: string;
  door: PasswordDoor;
  at: number;
}

export interface PasswordLimits {
  windowSeconds: number;
  /** Wrong passwords one client may send for one account in the window. */
  perClient: number;
  /** Wrong passwords for the account from all clients together after which it is under attack. */
  underAttackAfter: number;
  /** What an unknown client may send while the account is under attack (a client that has not failed can always try). */
  perClientUnderAttack: number;
}

// The account is never locked as a whole: a lock any stranger can set is a way to keep its owner out.
// Each client has its own allowance for each account; guesses spread over many clients meet the
// smaller allowance once the account is under attack, and a client that signed in to the account
// before keeps its full allowance throughout.
export const PASSWORD_LIMITS: PasswordLimits = { windowSeconds: 15 * 60, perClient: 10, underAttackAfter: 10, perClientUnderAttack: 3 };

export type PasswordAdmission = { outcome: "allowed" } | { outcome: "refused"; retryAfterSeconds: number; underAttack: boolean };

export interface PasswordAttempt {
  /** The account's wrong passwords so far; those older than the window are ignored. */
  failures: readonly PasswordFailure[];
  /** Clients that have signed in to the account with its password (recently, as the caller keeps them). */
  knownClients: readonly string[];
  client: string;
  door: PasswordDoor;
  now: number;
}

/** Whether `client` may try a password for the account now, and if not, for how long it waits. */
export function admitPasswordAttempt(attempt: PasswordAttempt, limits: PasswordLimits = PASSWORD_LIMITS): PasswordAdmission {
  const windowMs = limits.windowSeconds * 1000;
  const recent = attempt.failures.filter((f) => f.at > attempt.now - windowMs);
  // A client held back at sign-in is held back at an invitation too; the reverse never holds.
  const counted = attempt.door === "sign-in" ? recent.filter((f) => f.door === "sign-in") : recent;
  const underAttack = counted.length >= limits.underAttackAfter;
  const allowance = underAttack && !attempt.knownClients.includes(attempt.client) ? limits.perClientUnderAttack : limits.perClient;
  const own = counted.filter((f) => f.client === attempt.client).map((f) => f.at).sort((a, b) => a - b);
  if (own.length < allowance) return { outcome: "allowed" };
  // The client may try again once enough of its own failures have left the window to bring it under its allowance.
  const freedAt = own[own.length - allowance]! + windowMs;
  return { outcome: "refused", retryAfterSeconds: Math.max(1, Math.ceil((freedAt - attempt.now) / 1000)), underAttack };
}
