import { Client, type SFTPWrapper } from "ssh2";
import { backoffDelay, type Backoff } from "./backoff.ts";
import { NodeUnreachableError, unreachable } from "./node-unreachable.ts";
import { redact } from "./redact.ts";
import { execScript, type ExecInput, type ExecResult } from "./remote-exec.ts";
import { Semaphore } from "./semaphore.ts";
import { describeNode, type SshNode } from "./ssh-node.ts";

export interface ConnectionOptions {
  connectTimeoutMs: number;
  reconnect: Backoff;
  log: (line: string) => void;
}

const inWords = (ms: number) => (ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`);

/** What an operation gets to work with on the node. */
export interface Session {
  sftp: SFTPWrapper;
  exec(script: string, input?: ExecInput): Promise<ExecResult>;
}

interface Live extends Session {
  client: Client;
  closed: boolean;
}

// ssh2 sends no keepalives by default, so a node that vanished (no FIN, no RST) would hang every
// request; with these a dead peer closes the connection within about 20 s.
const KEEPALIVE_INTERVAL_MS = 5_000;
const KEEPALIVE_COUNT_MAX = 3;

// OpenSSH allows 10 channels per connection (MaxSessions); the SFTP session holds one.
const MAX_EXEC_CHANNELS = 6;

/**
 * One shared SSH connection (with one SFTP session) to a node, opened on first use and reopened on
 * the next use after a drop. Failed attempts back off exponentially; while backing off, callers
 * fail fast with the last error instead of queueing behind a dead node.
 */
export class SshConnection {
  readonly #where: Omit<SshNode, "privateKey">;
  readonly #privateKey: string;
  readonly #options: ConnectionOptions;
  readonly #channels = new Semaphore(MAX_EXEC_CHANNELS);
  #live: Live | null = null;
  #connecting: Promise<Live> | null = null;
  #failures = 0;
  #nextAttemptAt = 0;
  #lastFailure: NodeUnreachableError | null = null;
  #closed = false;
  /** When the node last answered; a fresh executor gives it the benefit of the doubt. */
  lastContactAt = Date.now();

  constructor(node: SshNode, options: ConnectionOptions) {
    const { privateKey, ...where } = node;
    this.#where = where;
    this.#privateKey = privateKey;
    this.#options = options;
  }

  get description(): string {
    return describeNode(this.#where);
  }

  /**
   * Runs `operation` on the node. When the connection drops under it, it is reconnected and the
   * operation run once more, so operations must be safe to repeat. Connection failures throw a
   * `NodeUnreachableError`; other failures an error naming the node and `what` was being done.
   */
  async run<T>(what: string, operation: (session: Session) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const live = await this.#open();
      try {
        const result = await operation(live);
        this.lastContactAt = Date.now();
        return result;
      } catch (error) {
        // ssh2 fails pending requests before it reports the close: let it catch up, then tell a
        // dropped connection from a failed operation.
        await new Promise((resolve) => setImmediate(resolve));
        if (!live.closed || attempt > 1) throw this.#failed(what, error, live.closed);
        this.#options.log(`${this.description}: connection dropped during ${what}; reconnecting`);
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const live = this.#live ?? (await this.#connecting?.catch(() => null));
    if (!live || live.closed) return;
    await new Promise<void>((resolve) => {
      live.client.once("close", () => resolve());
      live.client.end();
    });
  }

  #failed(what: string, error: unknown, dropped: boolean): Error {
    if (error instanceof NodeUnreachableError) return error;
    if (dropped) return unreachable(this.#where, error, this.#privateKey, this.#options.connectTimeoutMs);
    const message = error instanceof Error ? error.message : String(error);
    return new Error(redact(`${this.description}: ${what} failed: ${message}`, this.#privateKey));
  }

  #open(): Promise<Live> {
    if (this.#closed) return Promise.reject(new Error(`${this.description}: the executor was closed`));
    if (this.#live && !this.#live.closed) return Promise.resolve(this.#live);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #connect(): Promise<Live> {
    const wait = this.#nextAttemptAt - Date.now();
    if (wait > 0 && this.#lastFailure) {
      throw new NodeUnreachableError(`${this.#lastFailure.message} (next attempt in ${inWords(wait)})`);
    }
    try {
      const live = await this.#handshake();
      this.#live = live;
      this.#failures = 0;
      this.#lastFailure = null;
      this.lastContactAt = Date.now();
      this.#options.log(`${this.description}: connected`);
      return live;
    } catch (error) {
      this.#failures++;
      const delay = backoffDelay(this.#failures, this.#options.reconnect);
      this.#nextAttemptAt = Date.now() + delay;
      this.#lastFailure = unreachable(this.#where, error, this.#privateKey, this.#options.connectTimeoutMs);
      this.#options.log(`${this.#lastFailure.message}; next attempt in ${inWords(delay)}`);
      throw this.#lastFailure;
    }
  }

  #handshake(): Promise<Live> {
    return new Promise((resolve, reject) => {
      const client = new Client();
      let live: Live | null = null;
      client.on("ready", () => {
        client.sftp((error, sftp) => {
          if (error) {
            client.end();
            return reject(error);
          }
          sftp.on("error", (sftpError: Error) => this.#logError("sftp session", sftpError));
          live = {
            client,
            sftp,
            closed: false,
            exec: (script, input) => this.#channels.use(() => execScript(client, script, input)),
          };
          resolve(live);
        });
      });
      client.on("error", (error) => {
        if (live) this.#logError("connection", error);
        else reject(error);
      });
      client.on("close", () => {
        if (!live) return reject(new Error("the server closed the connection during the handshake"));
        live.closed = true;
        if (this.#live === live) this.#live = null;
        if (!this.#closed) this.#options.log(`${this.description}: connection closed; reconnecting on next use`);
      });
      try {
        client.connect({
          host: this.#where.host,
          port: this.#where.port,
          username: this.#where.user,
          privateKey: this.#privateKey,
          readyTimeout: this.#options.connectTimeoutMs,
          keepaliveInterval: KEEPALIVE_INTERVAL_MS,
          keepaliveCountMax: KEEPALIVE_COUNT_MAX,
        });
      } catch (error) {
        // ssh2 throws here, synchronously, for a key it cannot parse.
        reject(error);
      }
    });
  }

  #logError(what: string, error: Error): void {
    this.#options.log(redact(`${this.description}: ${what} error: ${error.message}`, this.#privateKey));
  }
}
