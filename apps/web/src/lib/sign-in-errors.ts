/** Why a sign-in without the page's script failed; the page shows the sentence, never text from the URL. */
export const SIGN_IN_ERRORS = {
  invalid: "That email and password do not match an account.",
  locked: "Too many wrong passwords from this device: wait a few minutes, or sign in from a device that has signed in before.",
  failed: "Sign-in failed on the server; try again in a moment.",
} as const;

export type SignInError = keyof typeof SIGN_IN_ERRORS;

export function signInErrorOf(code: string | undefined): string | null {
  return code !== undefined && Object.hasOwn(SIGN_IN_ERRORS, code) ? SIGN_IN_ERRORS[code as SignInError] : null;
}
