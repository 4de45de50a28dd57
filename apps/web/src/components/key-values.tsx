import { fmtNumber } from "./format";

const words = (key: string) => key.replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();

function Value({ value }: { value: unknown }) {
  if (typeof value === "number") return <>{fmtNumber(value)}</>;
  if (typeof value === "string") return <>{value}</>;
  if (value === null || value === undefined) return <>—</>;
  if (typeof value === "boolean") return <>{value ? "yes" : "no"}</>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <>none</>;
    if (value.every((v) => typeof v !== "object" || v === null)) return <>{value.map((v) => (typeof v === "number" ? fmtNumber(v) : String(v))).join(", ")}</>;
    return (
      <ol className="kv-list">
        {value.map((v, i) => (
          <li key={i}>
            <Value value={v} />
          </li>
        ))}
      </ol>
    );
  }
  return <KeyValues value={value} />;
}

/**
 * Stored JSON (a registration's reason, a skill's template, a label's evidence, test results) as
 * key/value lines a person reads, never as raw JSON.
 */
export function KeyValues({ value, testId }: { value: unknown; testId?: string }) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return <Value value={value} />;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return <span className="muted">nothing recorded</span>;
  return (
    <dl className="kv-inline" data-testid={testId}>
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{words(k)}</dt>
          <dd>
            <Value value={v} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
