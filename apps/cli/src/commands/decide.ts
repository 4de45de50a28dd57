import { onLocalApi } from "../cli-caller.ts";
import { remoteCredentials } from "../remote/credentials.ts";
import { onServer } from "../remote/remote-api.ts";

const kinds = ["approve", "revise", "veto"] as const;

function decidedLine(branchId: string, kind: string, decided: { alreadyDecided: boolean; status: string; enqueued: boolean }, server: string | null): string {
  const where = server ? ` on ${server}` : "";
  if (decided.alreadyDecided) return `evotrainer: branch ${branchId} was already decided${where} (${kind}); nothing changed`;
  return `evotrainer: ${kind} recorded for branch ${branchId}${where} (now ${decided.status}); ${decided.enqueued ? "the worker resumes the run" : "Redis is away: the worker picks it up when it reconciles"}`;
}

/**
 * `evotrainer decide <branchId> approve|revise|veto --note "…" [--anyway]` (--anyway: approve against a failed verdict, with the note as the reason): a person's decision on a waiting
 * branch, through the same API procedure as the dashboard's buttons, so it is stored the same way,
 * under the same guards and roles, with the caller as its actor.
 */
export async function decideCommand(args: string[]): Promise<number> {
  const [branchId = "", given] = args;
  const noteAt = args.indexOf("--note");
  const note = noteAt >= 0 ? args[noteAt + 1] : undefined;
  const kind = kinds.find((k) => k === given);
  if (!branchId || !kind) {
    throw new Error('usage: evotrainer decide <branchId> approve|revise|veto --note "…" [--anyway] (revise and veto need a note; approving a failed verdict needs --anyway and a note)');
  }
  if (kind !== "approve" && !note) throw new Error(`a ${kind} needs --note "…": the reason is what the proposer learns from`);
  const anyway = args.includes("--anyway");
  const remote = remoteCredentials();
  if (remote) {
    const decided = await onServer(remote, (api) =>
      kind === "approve" ? api.decision.approve.mutate({ branchId, reason: note ?? "", approveAnyway: anyway })
      : kind === "revise" ? api.decision.revise.mutate({ branchId, instructions: note! })
      : api.decision.veto.mutate({ branchId, reason: note! }),
    );
    console.log(decidedLine(branchId, kind, decided, remote.server));
    return 0;
  }
  const decided = await onLocalApi(
    kind,
    (api) =>
      kind === "approve" ? api.decision.approve({ branchId, reason: note ?? "", approveAnyway: anyway })
      : kind === "revise" ? api.decision.revise({ branchId, instructions: note! })
      : api.decision.veto({ branchId, reason: note! }),
    (message) => (message.includes("to approve anyway") ? ' (from the CLI: --anyway --note "why")' : ""),
  );
  console.log(decidedLine(branchId, kind, decided, null));
  return 0;
}
