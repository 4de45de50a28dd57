/** Why a sign-in without the page's script failed; the page shows the sentence, never text from the URL. */
export const SIGN_IN_ERRORS = {
  invalid: "That email and password do not match an account.",
  locked: "Too many sign-in attempts: wait a few minutes, or ask an admin to reset your password.",
  failed: "Sign-in failed on the server; try again in a moment.",
} as const;

export type SignInError = keyof typeof SIGN_IN_ERRORS;

export function signInErrorOf(code: string | undefined): string | null {
  return code !== undefined && Object.hasOwn(SIGN_IN_ERRORS, code) ? SIGN_IN_ERRORS[code as SignInError] : null;
}
