import { ScrollBlock } from "../scroll-block";
import { HighlightedText } from "./highlighted-text";
import { trajectoryEvidence, type Labelled, type ToolCallView } from "./trajectory-evidence";

function ToolCall({ call, quotes, turn }: { call: ToolCallView; quotes: Labelled[]; turn: string }) {
  return (
    <div className={`tool-call${call.labels.length ? " evidence" : ""}`} data-testid={call.labels.length ? "evidence-call" : "tool-call"}>
      <p>
        <strong>→ {call.name}</strong>{" "}
        {call.labels.map((l) => (
          <mark key={l} className="evidence">
            {l}
          </mark>
        ))}
      </p>
      <dl className="tool-args">
        {call.args.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{typeof v === "string" ? <HighlightedText name={`${turn}, ${call.name} ${k}`} text={v} labels={quotes} /> : <code>{JSON.stringify(v)}</code>}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** A multi-turn trajectory: each turn's text and tool calls, with every label's evidence marked where it sits. */
export function TrajectoryView({ trajectory, labels = [] }: { trajectory: unknown; labels?: Labelled[] }) {
  const turns = trajectoryEvidence(trajectory, labels);
  if (!turns) return <ScrollBlock name="Trajectory">{JSON.stringify(trajectory, null, 2)}</ScrollBlock>;
  // Quotes inside one argument's value (a command, a file's new text) are marked there too.
  const quotes = labels.map((l) => ({ label: l.label, evidence: l.evidence }));
  return (
    <ol className="trajectory">
      {turns.map((t, i) => (
        <li key={i} className={`turn role-${t.role}`}>
          <strong>{t.role}</strong>
          {t.toolName ? ` (${t.toolName})` : ""}
          {t.content && <HighlightedText name={`Turn ${i + 1}, ${t.role}${t.toolName ? ` (${t.toolName})` : ""}`} text={t.content} spans={t.spans} />}
          {t.calls.map((c, j) => (
            <ToolCall key={j} call={c} quotes={quotes} turn={`Turn ${i + 1}, call ${j + 1}`} />
          ))}
        </li>
      ))}
    </ol>
  );
}
