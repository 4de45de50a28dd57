/** A machine that runs jobs over SSH. */
export interface SshNode {
  name: string;
  host: string;
  port: number;
  user: string;
  /** OpenSSH/PEM private key text; held in memory only */
  privateKey: string;
  /** remote directory that holds one directory per job */
  workRoot: string;
}

/** How errors and log lines name a node: never with its key. */
export function describeNode(node: Pick<SshNode, "name" | "host" | "port" | "user">): string {
  return `ssh node "${node.name}" (${node.user}@${node.host}:${node.port})`;
}
