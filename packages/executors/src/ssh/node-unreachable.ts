import { describeNode, type SshNode } from "./ssh-node.ts";
import { redact } from "./redact.ts";

/** The node could not be reached: its jobs may well be running; only their files can tell. */
export class NodeUnreachableError extends Error {
  override readonly name = "NodeUnreachableError";
}

type Where = Pick<SshNode, "name" | "host" | "port" | "user">;

/** What went wrong, in words, and what to check. */
function diagnose(where: Where, error: Error & { code?: unknown; level?: unknown }, connectTimeoutMs: number): string {
  const code = typeof error.code === "string" ? error.code : "";
  if (code === "ECONNREFUSED") return `connection refused: check that sshd runs on ${where.host} and listens on port ${where.port}`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `host name "${where.host}" does not resolve: check the node's host`;
  if (code === "ETIMEDOUT" || code === "EHOSTUNREACH" || code === "ENETUNREACH" || /timed out/i.test(error.message)) {
    return `no answer within ${connectTimeoutMs} ms (${code || error.message}): check that the host is up and reachable from the control plane (network, firewall)`;
  }
  if (error.level === "client-authentication") {
    return `the server refused the key: check the user and that the node's public key is in that user's ~/.ssh/authorized_keys`;
  }
  if (/privateKey|private key/i.test(error.message)) {
    return "the private key could not be used: it must be an unencrypted OpenSSH or PEM private key";
  }
  if (/subsystem/i.test(error.message)) return `${error.message}: enable the sftp subsystem in the node's sshd_config`;
  return `${error.message}${code ? ` (${code})` : ""}: check the node's host, port, user and key`;
}

export function unreachable(where: Where, error: unknown, privateKey: string, connectTimeoutMs: number): NodeUnreachableError {
  const cause = error instanceof Error ? error : new Error(String(error));
  return new NodeUnreachableError(redact(`${describeNode(where)} unreachable: ${diagnose(where, cause, connectTimeoutMs)}`, privateKey));
}
