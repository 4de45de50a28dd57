import type { Heartbeat } from "@evotrainer/contract";

/**
 * Why a running job counts as hung: its trainer wrote heartbeats and stopped. Trainers that never
 * write one (verl, TRL through their adapters) are judged by their process alone.
 */
export function staleHeartbeat(heartbeat: Heartbeat | null, now: Date, staleMs: number): string | null {
  if (!heartbeat) return null;
  const silentMs = now.getTime() - new Date(heartbeat.time).getTime();
  if (silentMs <= staleMs) return null;
  return `no heartbeat for ${Math.round(silentMs / 1000)} s (last: step ${heartbeat.step}, ${heartbeat.phase}): the trainer hung, so the job was cancelled`;
}
