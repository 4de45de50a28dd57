import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";

/** A request as the fake API server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

type Json = Record<string, unknown>;

/** An object as the API server stores and serves it (JSON, timestamps as RFC 3339 strings). */
interface StoredObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    finalizers?: string[];
    [key: string]: unknown;
  };
  spec?: Json;
  status?: Json;
}

interface WatchEvent {
  resourceVersion: number;
  namespace: string;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: StoredObject;
}

interface Watcher {
  namespace: string;
  selector: string | undefined;
  response: ServerResponse;
}

export interface FakePod {
  name?: string;
  phase: "Pending" | "Running" | "Succeeded" | "Failed";
  conditions?: Json[];
  containerStatuses?: Json[];
  /** The trainer container's log, and that of its previous run (served with `previous=true`). */
  log?: string;
  previousLog?: string;
}

/** A `Status` object as the API server returns it with an error. */
function status(code: number, reason: string, message: string, details?: Json): Json {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, details, code };
}

/** Whether `labels` satisfy a label selector (`a=b`, `a==b`, `a!=b`, `a`, `!a`, comma-separated). */
export function matchesSelector(labels: Record<string, string> = {}, selector: string | undefined): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const requirement = term.trim();
    const unequal = /^([^!=]+)!=(.*)$/.exec(requirement);
    if (unequal) return labels[unequal[1]!.trim()] !== unequal[2]!.trim();
    const equal = /^([^!=]+)==?(.*)$/.exec(requirement);
    if (equal) return labels[equal[1]!.trim()] === equal[2]!.trim();
    if (requirement.startsWith("!")) return !(requirement.slice(1) in labels);
    return requirement in labels;
  });
}

/** Log text as the kubelet serves it: the last `tailLines` lines, then at most `limitBytes` of them. */
function cutLog(text: string, query: URLSearchParams): string {
  let result = text;
  const tailLines = query.get("tailLines");
  if (tailLines !== null) {
    const lines = result.split(/(?<=\n)/);
    result = lines.slice(Math.max(0, lines.length - Number(tailLines))).join("");
  }
  const limitBytes = query.get("limitBytes");
  if (limitBytes !== null) result = Buffer.from(result).subarray(0, Number(limitBytes)).toString("utf8");
  return result;
}

/**
 * A local HTTP server speaking the paths and object shapes of the Kubernetes API that the executor
 * uses: batch/v1 Jobs (create, read, list, watch, delete) and core/v1 Pods (list, log). There is
 * no controller: the test plays the Job controller and the kubelet through its methods, and every
 * change reaches watchers as the API server sends it (newline-delimited watch events).
 */
export class FakeKubeApi {
  readonly requests: RecordedRequest[] = [];
  private readonly objects = new Map<string, StoredObject>();
  private readonly logs = new Map<string, { log: string; previousLog?: string }>();
  private readonly history: WatchEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private resourceVersion = 100;
  // Watches from before this resource version get 410 Gone, as after an etcd compaction.
  private compactedAt = 0;
  private clock = Date.parse("2030-01-01T00:00:00Z");

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeKubeApi> {
    const server = createServer();
    const api = new FakeKubeApi(server);
    server.on("request", (request, response) => {
      api.handle(request, response).catch((error: unknown) => {
        response.writeHead(500, { "Content-Type": "application/json" });
        response.end(JSON.stringify(status(500, "InternalError", String(error))));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig for this server, as `loadFromOptions` takes one (plain HTTP needs skipTLSVerify). */
  kubeConfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: "fake", server: this.url, skipTLSVerify: true }],
      users: [{ name: "tester", token: "fake-token" }],
      contexts: [{ name: "fake", cluster: "fake", user: "tester" }],
      currentContext: "fake",
    });
    return config;
  }

  /** Writes that kubeconfig to `file`, where a process finds it as kubectl does (KUBECONFIG). */
  writeKubeconfig(file: string): string {
    writeFileSync(file, this.kubeConfig().exportConfig());
    return file;
  }

  async close(): Promise<void> {
    for (const watcher of this.watchers) watcher.response.end();
    this.watchers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests with this method whose path starts with `pathPrefix`. */
  requestsTo(method: string, pathPrefix: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method && request.path.startsWith(pathPrefix));
  }

  /** Open watches (the informer's long-lived GETs). */
  get watchCount(): number {
    return this.watchers.size;
  }

  /** As an API server restart or a load balancer does: closes every open watch. */
  dropWatches(): void {
    for (const watcher of this.watchers) watcher.response.end();
    this.watchers.clear();
  }

  /**
   * As etcd compaction does: the change history so far is gone, and a watch from before it gets
   * 410 Gone and must list again. (Resource versions are cluster-wide, so writes to other objects
   * move it on; one such write is counted here.)
   */
  compact(): void {
    this.history.length = 0;
    this.compactedAt = ++this.resourceVersion;
  }

  job(namespace: string, name: string): StoredObject | undefined {
    return this.objects.get(`jobs/${namespace}/${name}`);
  }

  /** As the Job controller does: replaces the Job's status and tells the watchers. */
  setJobStatus(namespace: string, name: string, jobStatus: Json): void {
    const job = this.job(namespace, name);
    if (!job) throw new Error(`no Job ${namespace}/${name}`);
    job.status = jobStatus;
    this.changed("MODIFIED", job);
  }

  /** As someone with kubectl does: deletes the Job at once, its pods with it. */
  deleteJob(namespace: string, name: string): void {
    const job = this.job(namespace, name);
    if (!job) throw new Error(`no Job ${namespace}/${name}`);
    this.remove(job);
  }

  /** As the Job controller and kubelet do: a pod of the Job, with the given status. */
  addPod(namespace: string, jobName: string, pod: FakePod): string {
    const job = this.job(namespace, jobName);
    if (!job) throw new Error(`no Job ${namespace}/${jobName}`);
    const name = pod.name ?? `${jobName}-${randomUUID().slice(0, 5)}`;
    const template = (job.spec?.template ?? {}) as { metadata?: { labels?: Record<string, string> }; spec?: Json };
    const stored: StoredObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        ...this.newMetadata(namespace, name),
        labels: template.metadata?.labels,
        ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: jobName, uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }],
      },
      spec: template.spec,
      status: { phase: pod.phase, conditions: pod.conditions ?? [], containerStatuses: pod.containerStatuses ?? [] },
    };
    this.objects.set(`pods/${namespace}/${name}`, stored);
    this.logs.set(`${namespace}/${name}`, { log: pod.log ?? "", previousLog: pod.previousLog });
    return name;
  }

  /** As the kubelet does: a new status for a pod. */
  setPodStatus(namespace: string, name: string, pod: Omit<FakePod, "name" | "log" | "previousLog">): void {
    const stored = this.objects.get(`pods/${namespace}/${name}`);
    if (!stored) throw new Error(`no Pod ${namespace}/${name}`);
    stored.status = { phase: pod.phase, conditions: pod.conditions ?? [], containerStatuses: pod.containerStatuses ?? [] };
    stored.metadata.resourceVersion = String(++this.resourceVersion);
  }

  private newMetadata(namespace: string, name: string) {
    this.clock += 1_000;
    return {
      name,
      namespace,
      uid: randomUUID(),
      resourceVersion: String(++this.resourceVersion),
      creationTimestamp: new Date(this.clock).toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
  }

  private changed(type: WatchEvent["type"], object: StoredObject): void {
    const resourceVersion = ++this.resourceVersion;
    object.metadata.resourceVersion = String(resourceVersion);
    const event: WatchEvent = { resourceVersion, namespace: object.metadata.namespace, type, object: structuredClone(object) };
    this.history.push(event);
    for (const watcher of this.watchers) this.send(watcher, event);
  }

  private send(watcher: Watcher, event: WatchEvent): void {
    if (watcher.namespace !== event.namespace || !matchesSelector(event.object.metadata.labels, watcher.selector)) return;
    watcher.response.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
  }

  private remove(job: StoredObject): void {
    const { namespace, name } = job.metadata;
    for (const [key, pod] of this.objects) {
      if (key.startsWith(`pods/${namespace}/`) && pod.metadata.labels?.["job-name"] === name) this.objects.delete(key);
    }
    this.objects.delete(`jobs/${namespace}/${name}`);
    this.changed("DELETED", job);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", this.url);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body: unknown = text ? JSON.parse(text) : undefined;
    const method = request.method ?? "GET";
    this.requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), body });

    const reply = (code: number, payload: unknown) => {
      response.writeHead(code, { "Content-Type": "application/json" });
      response.end(JSON.stringify(payload));
    };
    const jobs = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?$/.exec(url.pathname);
    const pods = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+)(\/log)?)?$/.exec(url.pathname);

    if (jobs && method === "POST" && !jobs[2]) return reply(...this.createJob(jobs[1]!, body as StoredObject));
    if (jobs && method === "GET" && !jobs[2] && url.searchParams.get("watch") === "true") return this.watch(jobs[1]!, url.searchParams, response);
    if (jobs && method === "GET" && !jobs[2]) return reply(200, this.list("jobs", "batch/v1", "JobList", jobs[1]!, url.searchParams));
    if (jobs && method === "GET") {
      const job = this.job(jobs[1]!, jobs[2]!);
      return job ? reply(200, job) : reply(404, this.notFound("jobs", "batch", jobs[2]!));
    }
    if (jobs && method === "DELETE" && jobs[2]) return reply(...this.deleteRequested(jobs[1]!, jobs[2], url.searchParams, body as Json | undefined));
    if (pods && method === "GET" && !pods[2]) return reply(200, this.list("pods", "v1", "PodList", pods[1]!, url.searchParams));
    if (pods && method === "GET" && pods[3]) return this.podLog(pods[1]!, pods[2]!, url.searchParams, response);
    reply(404, status(404, "NotFound", "the server could not find the requested resource"));
  }

  private notFound(resource: string, group: string, name: string): Json {
    const qualified = group ? `${resource}.${group}` : resource;
    return status(404, "NotFound", `${qualified} "${name}" not found`, { name, group: group || undefined, kind: resource });
  }

  /** What the API server and its admission defaults make of a new Job. */
  private createJob(namespace: string, job: StoredObject): [number, unknown] {
    const name = job.metadata?.name;
    if (this.job(namespace, name)) {
      return [409, status(409, "AlreadyExists", `jobs.batch "${name}" already exists`, { name, group: "batch", kind: "jobs" })];
    }
    const metadata = { ...job.metadata, ...this.newMetadata(namespace, name), generation: 1 };
    const controllerLabels = {
      "batch.kubernetes.io/controller-uid": metadata.uid,
      "batch.kubernetes.io/job-name": name,
      "controller-uid": metadata.uid,
      "job-name": name,
    };
    const spec = job.spec ?? {};
    const template = (spec.template ?? {}) as { metadata?: { labels?: Record<string, string> } };
    const stored: StoredObject = {
      ...job,
      metadata,
      spec: {
        parallelism: 1,
        completions: 1,
        completionMode: "NonIndexed",
        suspend: false,
        manualSelector: false,
        ...spec,
        selector: { matchLabels: { "batch.kubernetes.io/controller-uid": metadata.uid } },
        template: { ...template, metadata: { ...template.metadata, labels: { ...template.metadata?.labels, ...controllerLabels } } },
      },
      status: {},
    };
    this.objects.set(`jobs/${namespace}/${name}`, stored);
    this.changed("ADDED", stored);
    return [201, stored];
  }

  private list(resource: "jobs" | "pods", apiVersion: string, kind: string, namespace: string, query: URLSearchParams): Json {
    const selector = query.get("labelSelector") ?? undefined;
    const items = [...this.objects.entries()]
      .filter(([key, object]) => key.startsWith(`${resource}/${namespace}/`) && matchesSelector(object.metadata.labels, selector))
      .map(([, object]) => object);
    return { apiVersion, kind, metadata: { resourceVersion: String(this.resourceVersion) }, items };
  }

  /** A watch from `resourceVersion` on: the events after it, then each new one, until the client leaves. */
  private watch(namespace: string, query: URLSearchParams, response: ServerResponse): void {
    response.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    response.flushHeaders();
    const watcher: Watcher = { namespace, selector: query.get("labelSelector") ?? undefined, response };
    const from = Number(query.get("resourceVersion") ?? "0");
    if (from < this.compactedAt) {
      const gone = { ...status(410, "Expired", `too old resource version: ${from} (${this.compactedAt})`), status: "Failure" };
      response.end(`${JSON.stringify({ type: "ERROR", object: gone })}\n`);
      return;
    }
    for (const event of this.history) if (event.resourceVersion > from) this.send(watcher, event);
    this.watchers.add(watcher);
    response.on("close", () => this.watchers.delete(watcher));
  }

  /**
   * Foreground propagation keeps the Job, marked for deletion, until its pods are gone (here at
   * once, on the next tick); otherwise the Job goes at once.
   */
  private deleteRequested(namespace: string, name: string, query: URLSearchParams, body: Json | undefined): [number, unknown] {
    const job = this.job(namespace, name);
    if (!job) return [404, this.notFound("jobs", "batch", name)];
    const propagation = query.get("propagationPolicy") ?? (body?.propagationPolicy as string | undefined);
    if (propagation !== "Foreground") {
      this.remove(job);
      return [200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name, group: "batch", kind: "jobs", uid: job.metadata.uid } }];
    }
    job.metadata.deletionTimestamp = new Date(this.clock).toISOString().replace(/\.\d{3}Z$/, "Z");
    job.metadata.finalizers = ["foregroundDeletion"];
    this.changed("MODIFIED", job);
    setImmediate(() => {
      if (this.job(namespace, name) === job) this.remove(job);
    });
    return [200, structuredClone(job)];
  }

  private podLog(namespace: string, name: string, query: URLSearchParams, response: ServerResponse): void {
    const logs = this.logs.get(`${namespace}/${name}`);
    const fail = (code: number, payload: Json) => {
      response.writeHead(code, { "Content-Type": "application/json" });
      response.end(JSON.stringify(payload));
    };
    if (!logs || !this.objects.has(`pods/${namespace}/${name}`)) return fail(404, this.notFound("pods", "", name));
    const container = query.get("container") ?? "trainer";
    const text = query.get("previous") === "true" ? logs.previousLog : logs.log;
    if (text === undefined) {
      return fail(400, status(400, "BadRequest", `previous terminated container "${container}" in pod "${name}" not found`));
    }
    response.writeHead(200, { "Content-Type": "text/plain" });
    response.end(cutLog(text, query));
  }
}
