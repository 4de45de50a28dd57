export interface Span {
  start: number;
  end: number;
  label: string;
}

const MIN_TEXT = 4;

/**
 * Where a label's evidence sits in a text. A detector's match_span evidence carries start/end (and
 * the matched text, which must agree); value evidence (a tail, a message) is located by its text.
 */
export function evidenceSpans(text: string, labels: { label: string; evidence: unknown }[]): Span[] {
  const spans: Span[] = [];
  for (const { label, evidence } of labels) {
    if (evidence === null || typeof evidence !== "object") continue;
    const e = evidence as Record<string, unknown>;
    const start = Number(e.start);
    const end = Number(e.end);
    if (Number.isInteger(start) && Number.isInteger(end) && start >= 0 && end > start && end <= text.length && (typeof e.text !== "string" || text.slice(start, end) === e.text)) {
      spans.push({ start, end, label });
      continue;
    }
    for (const value of Object.values(e)) {
      if (typeof value !== "string" || value.length < MIN_TEXT) continue;
      const at = text.indexOf(value);
      if (at >= 0) spans.push({ start: at, end: at + value.length, label });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** The text cut into plain and highlighted pieces; overlapping spans merge into the first. */
export function pieces(text: string, spans: Span[]): { text: string; label: string | null }[] {
  const out: { text: string; label: string | null }[] = [];
  let at = 0;
  for (const s of spans) {
    if (s.end <= at) continue;
    const start = Math.max(s.start, at);
    if (start > at) out.push({ text: text.slice(at, start), label: null });
    out.push({ text: text.slice(start, s.end), label: s.label });
    at = s.end;
  }
  if (at < text.length) out.push({ text: text.slice(at), label: null });
  return out;
}
