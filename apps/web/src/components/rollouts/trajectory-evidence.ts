import { evidenceSpans, type Span } from "./evidence-spans";

export type Labelled = { label: string; evidence: unknown };
export interface ToolCallView {
  name: string;
  /** The arguments as detectors read them: canonical JSON, keys sorted. */
  canonical: string;
  args: [string, unknown][];
  /** Labels whose evidence quotes this call. */
  labels: string[];
}
export interface TurnView {
  role: string;
  toolName?: string;
  content: string;
  spans: Span[];
  calls: ToolCallView[];
}

type RawTurn = { role?: string; content?: unknown; toolCalls?: unknown; tool_calls?: unknown; toolName?: string; name?: string };
type RawCall = { name?: string; arguments?: unknown; function?: { name?: string; arguments?: unknown } };

// Below this, a quoted fragment matches by accident.
const MIN_QUOTE = 8;

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/**
 * The fragments of text a label's evidence quotes. SWE detectors quote "<tool> <tail of its
 * arguments>" or "<tool>: <tail of its output>", so the part after the tool's name counts too.
 */
export function evidenceQuotes(evidence: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") {
      if (v.length >= MIN_QUOTE) out.push(v);
      const named = /^[\w.-]+:? ([\s\S]+)$/.exec(v);
      if (named && named[1]!.length >= MIN_QUOTE) out.push(named[1]!.replace(/^…/, ""));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(evidence);
  return out;
}

function parseArgs(raw: unknown): Record<string, unknown> {
  if (typeof raw === "string") {
    try {
      const parsed: unknown = JSON.parse(raw);
      return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { input: raw };
    } catch {
      return { input: raw };
    }
  }
  return raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/**
 * A trajectory's turns with where each label's evidence sits: spans in a turn's text, and the tool
 * calls whose arguments the evidence quotes. Accepts the rollout schema's turns (toolCalls with
 * `arguments`) and OpenAI-style ones (tool_calls with `function`).
 */
export function trajectoryEvidence(trajectory: unknown, labels: Labelled[]): TurnView[] | null {
  const turns = (Array.isArray(trajectory) ? trajectory : (trajectory as { turns?: unknown } | null)?.turns) as RawTurn[] | undefined;
  if (!Array.isArray(turns) || turns.length === 0) return null;
  const quotes = labels.flatMap((l) => evidenceQuotes(l.evidence).map((q) => ({ label: l.label, q })));
  const quoted = labels.map((l) => ({ label: l.label, evidence: Object.fromEntries(evidenceQuotes(l.evidence).map((q, i) => [`q${i}`, q])) }));
  return turns.map((t) => {
    const content = typeof t.content === "string" ? t.content : t.content === null || t.content === undefined ? "" : JSON.stringify(t.content, null, 2);
    const rawCalls = (t.toolCalls ?? t.tool_calls ?? []) as RawCall[];
    const calls = (Array.isArray(rawCalls) ? rawCalls : []).map((c): ToolCallView => {
      const name = c.name ?? c.function?.name ?? "tool";
      const args = parseArgs(c.arguments ?? c.function?.arguments);
      const canonical = canonicalJson(args);
      const text = `${name} ${canonical}`;
      return { name, canonical, args: Object.entries(args), labels: [...new Set(quotes.filter((x) => text.includes(x.q)).map((x) => x.label))] };
    });
    return { role: t.role ?? "turn", toolName: t.toolName ?? t.name, content, spans: [...evidenceSpans(content, labels), ...evidenceSpans(content, quoted)].sort((a, b) => a.start - b.start), calls };
  });
}
