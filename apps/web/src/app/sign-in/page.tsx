import { safeRedirectPath } from "~/lib/safe-redirect";
import { signInErrorOf } from "~/lib/sign-in-errors";
import { SignInForm } from "./sign-in-form";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string; error?: string }> }) {
  const { next, error } = await searchParams;
  // Only paths on this site: an open redirect would send the user on to a look-alike page.
  const target = safeRedirectPath(next);
  return (
    <main className="page narrow">
      <h1>Sign in to EvoTrainer</h1>
      <SignInForm next={target} serverError={signInErrorOf(error)} />
      <p className="muted">The quickstart prints the local admin login when it first creates it.</p>
    </main>
  );
}
