import { fmtNumber } from "../format";

// Core's Finding as diagnosis stores it; `id`/`message` are what events written before it carried.
export type Finding = {
  level?: string;
  source?: string;
  title?: string;
  id?: string;
  message?: string;
  evidence?: { metrics?: Record<string, number>; counts?: Record<string, number>; exampleUids?: string[] };
};

const words = (key: string) => key.replace(/^label_(rate|count)\./, "").replace(/[._]/g, " ");

/** The numbers and rollouts behind a finding, as one line: "dead group ratio 0.5625 · truncated: 12 rollouts · 3 examples". */
export function findingEvidence(evidence: Finding["evidence"]): string {
  if (!evidence) return "";
  const parts = [
    ...Object.entries(evidence.metrics ?? {}).map(([k, v]) => `${words(k)} ${fmtNumber(v)}`),
    ...Object.entries(evidence.counts ?? {}).map(([k, v]) => `${words(k)}: ${v} rollout${v === 1 ? "" : "s"}`),
  ];
  const examples = evidence.exampleUids?.length ?? 0;
  if (examples > 0) parts.push(`${examples} example rollout${examples === 1 ? "" : "s"}`);
  return parts.join(" · ");
}
