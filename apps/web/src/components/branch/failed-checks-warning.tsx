export type FailedCheck = { name: string; detail: string };

/** What a person overrides when promoting against a verdict or a policy: each failed check, in words. */
export function FailedChecksWarning({ heading, checks }: { heading: string; checks: FailedCheck[] }) {
  return (
    <div className="warning" role="alert" data-testid="override-warning">
      <strong>{heading}</strong>
      <ul>
        {checks.map((c) => (
          <li key={c.name}>
            <strong>{c.name}</strong>: {c.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}
