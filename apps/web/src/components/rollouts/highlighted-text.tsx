import { evidenceSpans, pieces, type Span } from "./evidence-spans";

/** Text with each label's evidence marked; pass `spans` where they are already located. */
export function HighlightedText({ text, labels = [], spans }: { text: string; labels?: { label: string; evidence: unknown }[]; spans?: Span[] }) {
  return (
    <pre className="text-block">
      {pieces(text, spans ?? evidenceSpans(text, labels)).map((p, i) =>
        p.label ? (
          <mark key={i} className="evidence" data-testid="evidence-highlight" title={p.label}>
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </pre>
  );
}
