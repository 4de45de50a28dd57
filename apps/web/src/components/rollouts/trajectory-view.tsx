type Turn = { role?: string; content?: unknown; tool_calls?: unknown; toolCalls?: unknown; name?: string };

/** A multi-turn trajectory: each turn with its role, text, and any tool calls or results. */
export function TrajectoryView({ trajectory }: { trajectory: unknown }) {
  const turns = (Array.isArray(trajectory) ? trajectory : ((trajectory as { turns?: unknown[] })?.turns ?? [])) as Turn[];
  if (turns.length === 0) return <pre className="text-block">{JSON.stringify(trajectory, null, 2)}</pre>;
  return (
    <ol className="trajectory">
      {turns.map((t, i) => (
        <li key={i} className={`turn role-${t.role ?? "unknown"}`}>
          <strong>{t.role ?? "turn"}</strong>
          {t.name ? ` (${t.name})` : ""}
          <pre className="text-block">{typeof t.content === "string" ? t.content : JSON.stringify(t.content, null, 2)}</pre>
          {(t.tool_calls ?? t.toolCalls) !== undefined && <pre className="text-block tool">{JSON.stringify(t.tool_calls ?? t.toolCalls, null, 2)}</pre>}
        </li>
      ))}
    </ol>
  );
}
