import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { createLocalUser } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { SEED_PASSWORD } from "../support/dashboard-seed.ts";
import { signIn } from "./sign-in.ts";

const shots = "test-results/screenshots";

test("an admin adds a webhook, sends a test and sees it delivered in the log", async ({ page }) => {
  // A local receiver that speaks the Slack incoming-webhook protocol (Slack itself is out of reach).
  const bodies: string[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.5", resolve));
  const url = `http://127.0.0.5:${(receiver.address() as AddressInfo).port}/services/T0/B0/e2e-token`;
  const db = createDatabase(process.env.DATABASE_URL!);
  try {
    const org = await db.organization.create({ data: { name: "Notify E2E", slug: `notify-e2e-${Date.now()}` } });
    const email = `notify-admin-${Date.now()}@example.test`;
    await createLocalUser(db, { email, name: "Notify admin", password: SEED_PASSWORD, organizationId: org.id, role: "admin" });
    await signIn(page, email);
    await page.getByRole("link", { name: "Notifications" }).click();
    await expect(page.getByRole("heading", { name: "Notifications" })).toBeVisible();

    // Issue 28: the dashboard's own port, by address and written as a number, is refused with a sentence.
    for (const [internal, why] of [
      [`http://127.0.0.1:${new URL(page.url()).port}/api/health`, "url: 127.0.0.1 is a loopback address, which webhooks may not reach"],
      [`http://2130706433:${new URL(page.url()).port}/`, "url: the host 2130706433 is an IPv4 address written as a number"],
    ] as const) {
      await page.getByLabel("Name").fill("probe");
      await page.getByLabel(/^URL/).fill(internal);
      await page.getByRole("button", { name: "Add webhook" }).click();
      await expect(page.locator("p[role=alert]")).toContainText(why);
    }
    await expect(page.getByTestId("webhooks-table").getByRole("row", { name: /probe/ })).toHaveCount(0);

    await page.getByLabel("Name").fill("team-slack");
    await page.getByLabel(/^URL/).fill(url);
    await page.getByRole("button", { name: "Add webhook" }).click();
    const row = page.getByTestId("webhooks-table").getByRole("row", { name: /team-slack/ });
    await expect(row).toBeVisible();
    // Only the origin comes back: the path holds Slack's token.
    await expect(page.locator("body")).not.toContainText("e2e-token");

    await row.getByRole("button", { name: "Send test" }).click();
    const delivery = page.getByTestId("delivery-row").filter({ hasText: "team-slack" });
    // The worker delivers in the background; the log refreshes itself.
    await expect(delivery).toContainText("delivered", { timeout: 30_000 });
    await expect(delivery).toContainText("HTTP 200");
    expect(JSON.parse(bodies[0]!).text).toMatch(/^Test notification from EvoTrainer.*<http.*\/settings\/notifications\|Open in EvoTrainer>$/);
    await page.screenshot({ path: `${shots}/notifications-delivered.png`, fullPage: true });
  } finally {
    await db.$disconnect();
    await new Promise((resolve) => receiver.close(resolve));
  }
});
