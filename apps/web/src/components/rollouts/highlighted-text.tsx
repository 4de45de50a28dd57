import { evidenceSpans, pieces } from "./evidence-spans";

export function HighlightedText({ text, labels }: { text: string; labels: { label: string; evidence: unknown }[] }) {
  return (
    <pre className="text-block">
      {pieces(text, evidenceSpans(text, labels)).map((p, i) =>
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
