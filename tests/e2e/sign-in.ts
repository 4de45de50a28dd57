import { expect, type Page } from "@playwright/test";
import { SEED_PASSWORD } from "../support/dashboard-seed.ts";

export async function signIn(page: Page, email: string, password = SEED_PASSWORD): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Hashing a password is slow on a loaded machine (CI holds one of two cores busy).
  await expect(page.getByTestId("signed-in-as")).toHaveText(email, { timeout: 30_000 });
}
