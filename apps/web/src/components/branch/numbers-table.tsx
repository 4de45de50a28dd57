/** Every key and value of a reported object, nested objects flattened with dots. */
export function NumbersTable({ value, testId }: { value: unknown; testId?: string }) {
  const rows: [string, string][] = [];
  const walk = (v: unknown, path: string) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    else rows.push([path, typeof v === "number" ? String(Number(v.toFixed(6))) : JSON.stringify(v)]);
  };
  walk(value, "");
  if (rows.length === 0) return <p className="muted">Nothing reported.</p>;
  return (
    <table className="kv" data-testid={testId}>
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th>{k}</th>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
