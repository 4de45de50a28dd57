import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The two wire protocols the LLM proposer speaks. */
export type LlmProtocol = "openai" | "anthropic";

export const PROTOCOL_NAMES: Record<LlmProtocol, string> = {
  openai: "the OpenAI chat-completions protocol",
  anthropic: "the Anthropic messages protocol",
};

/** One request as the server received it. */
export interface CapturedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as sent. */
  raw: string;
  body: Record<string, unknown>;
  /** System prompt and every message's text, in order. */
  text: string;
}

export type Reply =
  /** A well-formed answer carrying this JSON object. */
  | { kind: "object"; object: unknown }
  /** A well-formed answer carrying this text verbatim (e.g. malformed JSON). */
  | { kind: "text"; text: string }
  /** Never answers: the client must give up on its own. */
  | { kind: "hang" }
  | { kind: "status"; status: number; body: unknown };

export type Script = (request: CapturedRequest, index: number) => Reply;

/** Tokens as the server bills them: one per 4 characters, as deterministic as a test needs. */
export const tokensOf = (s: string) => Math.ceil(s.length / 4);

/**
 * A local HTTP server speaking the OpenAI chat-completions protocol (`POST /v1/chat/completions`)
 * or the Anthropic messages protocol (`POST /v1/messages`, `x-api-key`, `anthropic-version`,
 * tool_use content blocks when the request offers a tool). Replies come from a script, or from a
 * queue of replies per test; every request body and every billed usage is kept for assertions.
 */
export class FakeLlmServer {
  readonly requests: CapturedRequest[] = [];
  /** The usage each answered request was billed, in request order (hung requests bill nothing). */
  readonly usages: { inputTokens: number; outputTokens: number }[] = [];
  private readonly queue: Reply[] = [];

  private constructor(
    readonly protocol: LlmProtocol,
    private readonly server: Server,
    private script: Script | undefined,
    readonly apiKey: string | undefined,
  ) {}

  static async start(protocol: LlmProtocol, options: { script?: Script; apiKey?: string } = {}): Promise<FakeLlmServer> {
    let self: FakeLlmServer | undefined;
    const server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (raw += chunk));
      req.on("end", () => self!.handle(req.method ?? "", req.url ?? "", req.headers, raw, res));
    });
    self = new FakeLlmServer(protocol, server, options.script, options.apiKey);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return self;
  }

  /** The API root to configure the proposer with. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Queues replies for the next requests; the script answers once the queue is empty. */
  reply(...replies: Reply[]): void {
    this.queue.push(...replies);
  }

  answerWith(script: Script): void {
    this.script = script;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(method: string, path: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): void {
    const expected = this.protocol === "openai" ? "/v1/chat/completions" : "/v1/messages";
    if (method !== "POST" || path !== expected) return send(res, 404, { error: { message: `no route ${method} ${path}` } });
    const authError = this.authError(headers);
    if (authError) return send(res, 401, this.protocol === "anthropic" ? { type: "error", error: { type: "authentication_error", message: authError } } : { error: { message: authError } });
    const body = JSON.parse(raw) as Record<string, unknown>;
    const request: CapturedRequest = { path, headers, raw, body, text: this.protocol === "openai" ? openAiText(body) : anthropicText(body) };
    const index = this.requests.push(request) - 1;
    const reply = this.queue.shift() ?? this.script?.(request, index);
    if (!reply) return send(res, 500, { error: { message: "the test scripted no reply for this request" } });
    if (reply.kind === "hang") return;
    if (reply.kind === "status") return send(res, reply.status, reply.body);
    const text = reply.kind === "object" ? JSON.stringify(reply.object) : reply.text;
    const usage = { inputTokens: tokensOf(raw), outputTokens: tokensOf(text) };
    this.usages.push(usage);
    send(res, 200, this.protocol === "openai" ? openAiAnswer(body, text, usage) : anthropicAnswer(body, reply, text, usage));
  }

  private authError(headers: IncomingHttpHeaders): string | undefined {
    if (this.protocol === "anthropic") {
      if (!headers["anthropic-version"]) return "missing anthropic-version header";
      if (this.apiKey !== undefined && headers["x-api-key"] !== this.apiKey) return "invalid x-api-key";
      return undefined;
    }
    if (this.apiKey !== undefined && headers.authorization !== `Bearer ${this.apiKey}`) return "invalid bearer token";
    return undefined;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

type Usage = { inputTokens: number; outputTokens: number };

function openAiAnswer(body: Record<string, unknown>, text: string, usage: Usage) {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
  };
}

// With a `json` tool on offer the SDK expects the object as that tool's input (its way of
// getting structured output from models without native JSON mode); raw text always comes as text.
function anthropicAnswer(body: Record<string, unknown>, reply: Reply, text: string, usage: Usage) {
  const tools = (body.tools as { name?: string }[] | undefined) ?? [];
  const tool = tools.find((t) => t.name === "json");
  const content =
    reply.kind === "object" && tool
      ? [{ type: "tool_use", id: `toolu_${Math.random().toString(36).slice(2)}`, name: tool.name, input: reply.object }]
      : [{ type: "text", text }];
  return {
    id: `msg_${Math.random().toString(36).slice(2)}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: content[0]!.type === "tool_use" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  };
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { type?: string; text?: string; input?: unknown }) => part.text ?? (part.input !== undefined ? JSON.stringify(part.input) : "")).join("\n");
}

function openAiText(body: Record<string, unknown>): string {
  return ((body.messages as { content?: unknown }[] | undefined) ?? []).map((m) => contentText(m.content)).join("\n\n");
}

function anthropicText(body: Record<string, unknown>): string {
  const system = contentText(body.system);
  const messages = ((body.messages as { content?: unknown }[] | undefined) ?? []).map((m) => contentText(m.content));
  return [system, ...messages].join("\n\n");
}
