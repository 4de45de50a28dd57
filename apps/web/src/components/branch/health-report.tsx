import type { RouterOutputs } from "@evotrainer/api";
import { findingEvidence, type Finding } from "./finding-evidence";

type Health = RouterOutputs["branch"]["byId"]["health"];
/** Diagnosis's findings per layer, each with its title, where it came from and the evidence behind it. */
export function HealthReport({ health }: { health: Health }) {
  const layers = (health?.payload as { layers?: Record<string, Finding[] | Record<string, Finding>> } | null)?.layers;
  if (!layers) return <p className="muted">No health report yet: diagnosis writes one after the branch&apos;s rollouts are labelled.</p>;
  return (
    <div className="layers" data-testid="health-report">
      {Object.entries(layers).map(([layer, findings]) => {
        const list: Finding[] = Array.isArray(findings) ? findings : Object.entries(findings).map(([id, f]) => ({ id, ...f }));
        return (
          <div key={layer}>
            <h4>{layer}</h4>
            {list.length === 0 ? (
              <p className="muted">No findings.</p>
            ) : (
              <ul>
                {list.map((f, i) => (
                  <li key={`${f.source ?? f.id}-${i}`} data-testid="health-finding">
                    <span className={`pill level-${f.level}`}>{f.level}</span> <strong className="finding-title">{f.title ?? f.message ?? f.source ?? f.id}</strong>{" "}
                    {(f.source ?? f.id) && <code className="muted">{f.source ?? f.id}</code>}
                    {f.evidence && <div className="muted evidence-summary">{findingEvidence(f.evidence)}</div>}
                  </li>
                ))}
              </ul>
            )}
          </div>
        );
      })}
    </div>
  );
}
