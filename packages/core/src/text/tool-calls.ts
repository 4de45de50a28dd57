/** A tool call as detectors see it: its name and its arguments as canonical JSON text. */
export interface ToolCallView {
  name: string;
  args: string;
}

export function toolCount(calls: readonly ToolCallView[], name: string): number {
  let n = 0;
  for (const c of calls) if (c.name === name) n++;
  return n;
}

/** Longest run of consecutive identical calls (same tool, same arguments): an agent stuck echoing. */
export function toolRepeatRun(calls: readonly ToolCallView[]): number {
  let best = 0;
  let run = 0;
  for (let i = 0; i < calls.length; i++) {
    const prev = calls[i - 1];
    const cur = calls[i]!;
    run = prev !== undefined && prev.name === cur.name && prev.args === cur.args ? run + 1 : 1;
    if (run > best) best = run;
  }
  return best;
}
