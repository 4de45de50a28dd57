import { fmtNumber } from "../format";

const MAX = 120;

function short(v: unknown): string {
  if (typeof v === "string") return v.length > MAX ? `…${v.slice(-MAX)}` : v;
  if (typeof v === "number") return fmtNumber(v);
  if (typeof v === "boolean" || v === null) return String(v);
  if (Array.isArray(v)) return v.length === 0 ? "none" : v.map(short).join("; ");
  if (v === undefined) return "—";
  return `(${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k.replace(/_/g, " ")} ${short(x)}`).join(", ")})`;
}

/**
 * A label's evidence as a line a person reads ("files: tests/test_x.py · calls: …"), never offsets:
 * where a quote sits is shown by highlighting it in the text.
 */
export function evidenceSummary(evidence: unknown): string {
  if (evidence === null || evidence === undefined) return "";
  if (typeof evidence !== "object" || Array.isArray(evidence)) return short(evidence);
  const e = evidence as Record<string, unknown>;
  if (typeof e.text === "string" && "start" in e) return `“${short(e.text)}”`;
  return Object.entries(e)
    .filter(([k, v]) => k !== "found" && v !== undefined)
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${short(v)}`)
    .join(" · ");
}
