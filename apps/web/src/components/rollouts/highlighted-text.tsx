import { ScrollBlock } from "../scroll-block";
import { evidenceSpans, pieces, type Span } from "./evidence-spans";

/** Text with each label's evidence marked; pass `spans` where they are already located. `name` names it when it scrolls. */
export function HighlightedText({ name, text, labels = [], spans }: { name: string; text: string; labels?: { label: string; evidence: unknown }[]; spans?: Span[] }) {
  return (
    <ScrollBlock name={name}>
      {pieces(text, spans ?? evidenceSpans(text, labels)).map((p, i) =>
        p.label ? (
          <mark key={i} className="evidence" data-testid="evidence-highlight" title={p.label}>
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </ScrollBlock>
  );
}
