import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseSignatureHeader, signedString } from "@evotrainer/core";
import { createTestDelivery, createWebhook, masterKeyOrLocal, recordEvent, webhookAllowList } from "@evotrainer/db";
import { deliver } from "../../apps/worker/src/notify/deliver.ts";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp, type WorkerApp } from "../../apps/worker/src/worker-app.ts";
import { seedDashboard } from "../support/dashboard-seed.ts";
import { apiHarness } from "../support/api-harness.ts";

// A database of its own: deliveries and outbox rows are counted here.
const redisUrl = inject("redisUrl");
const harness = await apiHarness(inject("databaseUrl"), redisUrl);
const { database, db, prefix, connection, producer } = harness;
const masterKey = Buffer.alloc(32, 7).toString("base64");
process.env.EVO_MASTER_KEY = masterKey;
// The receiver stands for an on-premises one: its one loopback address is allowed, the rest of loopback is not.
const RECEIVER_HOST = "127.0.0.5";
process.env.EVO_WEBHOOK_ALLOW_CIDRS = `${RECEIVER_HOST}/32`;

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A local receiver that speaks the webhook protocol (Slack itself cannot be reached from a test). */
class LocalWebhookReceiver {
  readonly received: Received[] = [];
  /** Status to answer, per path, in order; 200 once the list is used up. */
  readonly answers = new Map<string, number[]>();
  private waiters: { path: string; count: number; resolve: (requests: Received[]) => void }[] = [];
  private server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      this.received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.statusCode = this.answers.get(path)?.shift() ?? 200;
      response.end(response.statusCode === 200 ? "ok" : "receiver down");
      this.waiters = this.waiters.filter((w) => !this.settle(w));
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, RECEIVER_HOST, resolve));
    return `http://${RECEIVER_HOST}:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves with the requests to `path` once there are `count` of them. */
  until(path: string, count: number): Promise<Received[]> {
    return new Promise((resolve) => {
      const waiter = { path, count, resolve };
      if (!this.settle(waiter)) this.waiters.push(waiter);
    });
  }

  private settle(waiter: { path: string; count: number; resolve: (requests: Received[]) => void }): boolean {
    const requests = this.received.filter((r) => r.path === waiter.path);
    if (requests.length < waiter.count) return false;
    waiter.resolve(requests);
    return true;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const receiver = new LocalWebhookReceiver();
let base = "";
let seed: Awaited<ReturnType<typeof seedDashboard>>;
let app: WorkerApp;

const api = (userId: string) => harness.callerAs({ userId });

async function deliveryOf(id: string, settled: (status: string) => boolean) {
  for (;;) {
    const row = await db.notificationDelivery.findUniqueOrThrow({ where: { id } });
    if (settled(row.status)) return row;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeAll(async () => {
  await connection.connect();
  base = await receiver.start();
  seed = await seedDashboard(db, "notify");
  const env = loadWorkerEnv({
    DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_RECONCILE_EVERY_MS: "1000",
    EVO_PUBLIC_URL: "https://evo.example", EVO_NOTIFY_RETRY_BASE_MS: "1",
  });
  app = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
});

afterAll(async () => {
  await app?.shutdown();
  await receiver.close();
  await harness.close();
});

describe("notifications (against a local webhook receiver)", () => {
  it("refuses webhooks to internal addresses at creation, in every form", async () => {
    const admin = api(seed.users.admin.id);
    const port = new URL(base).port;
    for (const url of [`http://127.0.0.1:${port}/`, `http://2130706437:${port}/`, `http://localhost:${port}/`, `http://[::ffff:${RECEIVER_HOST}]:${port}/`, "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/"]) {
      await expect(admin.notification.createWebhook({ name: `internal ${url}`.slice(0, 80), kind: "generic", url }), url).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^url: /) });
    }
    expect(await db.notificationWebhook.count({ where: { name: { startsWith: "internal" } } })).toBe(0);
  });

  it("refuses again at delivery, and logs a closed port and an open non-HTTP one alike, never what they answered", async () => {
    // Written past the API, as a webhook made before the policy or a name that now resolves inside would be.
    let insideRequests = 0;
    const inside = createServer((_req, res) => {
      insideRequests++;
      res.end("internal secret page");
    });
    await new Promise<void>((resolve) => inside.listen(0, "127.0.0.1", resolve));
    const garbageSockets = new Set<Socket>();
    const garbage = createNetServer((socket) => {
      garbageSockets.add(socket);
      socket.end("-ERR not http, but a service that answers\r\n");
    });
    await new Promise<void>((resolve) => garbage.listen(0, RECEIVER_HOST, resolve));
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, RECEIVER_HOST, resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const admin = api(seed.users.admin.id);
    const hookTo = async (name: string, url: string) => (await createWebhook(db, seed.org.id, { name, kind: "generic", url }, masterKeyOrLocal())).webhook.id;
    try {
      const ids = {
        inside: await hookTo("inside", `http://127.0.0.1:${(inside.address() as AddressInfo).port}/`),
        garbage: await hookTo("open port", `http://${RECEIVER_HOST}:${(garbage.address() as AddressInfo).port}/`),
        closed: await hookTo("closed port", `http://${RECEIVER_HOST}:${closedPort}/`),
      };
      // One attempt each, made here through the worker's own deliver step: its record is the answer (later attempts repeat it).
      const deps = { db, producer, masterKey: masterKeyOrLocal(), publicUrl: "https://evo.example", retryBaseMs: 60_000, allowed: webhookAllowList() };
      const firstAttempt = async (id: string) => {
        const deliveryId = (await createTestDelivery(db, seed.org.id, id, { kind: "test", runId: "", branchId: null, summary: "probe", path: "/" }))!;
        await deliver(deps, { deliveryId, attempt: 1 });
        return db.notificationDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
      };
      const insideRow = await firstAttempt(ids.inside);
      const garbageRow = await firstAttempt(ids.garbage);
      const closedRow = await firstAttempt(ids.closed);
      expect(insideRow).toMatchObject({ lastStatus: null, lastError: "not sent: the address is not one webhooks may reach (see EVO_WEBHOOK_ALLOW_CIDRS)" });
      expect({ status: garbageRow.lastStatus, error: garbageRow.lastError }).toEqual({ status: closedRow.lastStatus, error: closedRow.lastError });
      expect(closedRow.lastError).toBe("no HTTP answer from the receiver");
      const log = JSON.stringify(await admin.notification.deliveries({}));
      expect(log).not.toContain("internal secret page");
      expect(log).not.toContain("not http");
      expect(insideRequests).toBe(0);
    } finally {
      // No later attempts at these: the worker's sweep would otherwise retry them through the other tests.
      await db.notificationWebhook.deleteMany({ where: { name: { in: ["inside", "open port", "closed port"] } } });
      await new Promise((resolve) => inside.close(resolve));
      garbageSockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => garbage.close(resolve));
    }
  });

  it("lets only admins manage webhooks, and keeps URLs and signing secrets out of the database in clear", async () => {
    await expect(api(seed.users.approver.id).notification.createWebhook({ name: "x", kind: "slack", url: `${base}/x` })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api(seed.users.admin.id).notification.createWebhook({ name: "bad", kind: "slack", url: "ftp://x" })).rejects.toThrow(/url/);
    const admin = api(seed.users.admin.id);
    const slack = await admin.notification.createWebhook({ name: "slack", kind: "slack", url: `${base}/slack/T000/B000/token-slack-secret` });
    const generic = await admin.notification.createWebhook({ name: "generic", kind: "generic", url: `${base}/generic?token=generic-secret` });
    expect(slack.signingSecret).toBeNull();
    expect(generic.signingSecret).toMatch(/^whsec_/);
    await expect(admin.notification.createWebhook({ name: "slack", kind: "slack", url: `${base}/y` })).rejects.toMatchObject({ code: "CONFLICT" });
    const listed = JSON.stringify(await admin.notification.webhooks({}));
    expect(listed).not.toContain("token-slack-secret");
    expect(listed).toContain(base);

    const rows = await db.$queryRawUnsafe<{ dump: string }[]>(`SELECT row_to_json(w)::text AS dump FROM "NotificationWebhook" w`);
    const dump = rows.map((r) => r.dump).join("\n");
    expect(dump).not.toContain("token-slack-secret");
    expect(dump).not.toContain("generic-secret");
    expect(dump).not.toContain(generic.signingSecret!);
  });

  it("sends a branch awaiting decision to Slack as text with a deep link, and signed JSON to a generic receiver", async () => {
    const branch = seed.branches.v3;
    await db.$transaction((tx) => recordEvent(tx, { runId: seed.run.id, branchId: branch.id, type: "awaiting_decision", actor: "system", payload: {} }));
    const [slack] = await receiver.until("/slack/T000/B000/token-slack-secret", 1);
    const [generic] = await receiver.until("/generic?token=generic-secret", 1);
    const deepLink = `https://evo.example/runs/${seed.run.id}/branches/${branch.id}`;
    // The summary names what a person knows: the run by its name, the branch by its version.
    expect(JSON.parse(slack!.body)).toEqual({ text: `Branch v3 of run ${seed.run.name} awaits a decision <${deepLink}|Open in EvoTrainer>` });
    expect(slack!.headers["x-evotrainer-signature"]).toBeUndefined();

    const body = JSON.parse(generic!.body);
    expect(body).toMatchObject({ kind: "branch_awaiting_decision", runId: seed.run.id, branchId: branch.id, url: deepLink });
    const signature = parseSignatureHeader(String(generic!.headers["x-evotrainer-signature"]));
    expect(signature).not.toBeNull();
    const secretRow = (await api(seed.users.admin.id).notification.webhooks({})).find((w) => w.name === "generic")!;
    expect(secretRow.signed).toBe(true);
  });

  it("verifies the generic signature with the secret shown at creation", async () => {
    const admin = api(seed.users.admin.id);
    const created = await admin.notification.createWebhook({ name: "verify", kind: "generic", url: `${base}/verify` });
    const { deliveryId } = await admin.notification.sendTest({ id: created.webhook.id });
    const [request] = await receiver.until("/verify", 1);
    const signature = parseSignatureHeader(String(request!.headers["x-evotrainer-signature"]))!;
    const expected = createHmac("sha256", created.signingSecret!).update(signedString(signature.t, request!.body)).digest();
    expect(timingSafeEqual(expected, Buffer.from(signature.v1, "hex"))).toBe(true);
    const tampered = createHmac("sha256", created.signingSecret!).update(signedString(signature.t, `${request!.body} `)).digest();
    expect(timingSafeEqual(tampered, Buffer.from(signature.v1, "hex"))).toBe(false);
    expect(await deliveryOf(deliveryId, (s) => s === "delivered")).toMatchObject({ attempts: 1, lastStatus: 200 });
  });

  it("retries a receiver that answers 500, and the delivery log shows the attempts", async () => {
    const admin = api(seed.users.admin.id);
    receiver.answers.set("/flaky", [500]);
    const created = await admin.notification.createWebhook({ name: "flaky", kind: "slack", url: `${base}/flaky` });
    const { deliveryId } = await admin.notification.sendTest({ id: created.webhook.id });
    await receiver.until("/flaky", 2);
    expect(await deliveryOf(deliveryId, (s) => s === "delivered")).toMatchObject({ attempts: 2, lastStatus: 200, lastError: null });
    const log = await admin.notification.deliveries({});
    expect(log.find((d) => d.id === deliveryId)).toMatchObject({ webhookName: "flaky", kind: "test", status: "delivered", attempts: 2 });
  });

  it("gives up after six failed attempts, and an event rolled back notifies nobody", async () => {
    const admin = api(seed.users.admin.id);
    receiver.answers.set("/down", [500, 500, 500, 500, 500, 500, 500]);
    const created = await admin.notification.createWebhook({ name: "down", kind: "slack", url: `${base}/down` });
    const { deliveryId } = await admin.notification.sendTest({ id: created.webhook.id });
    expect(await deliveryOf(deliveryId, (s) => s === "dead")).toMatchObject({ attempts: 6, lastStatus: 500, lastError: "the receiver answered with an error status" });

    const before = await db.notificationOutbox.count();
    await expect(
      db.$transaction(async (tx) => {
        await recordEvent(tx, { runId: seed.run.id, type: "run_finished", actor: "system", payload: {} });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await db.notificationOutbox.count()).toBe(before);
  });
});
