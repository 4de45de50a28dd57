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

/**
 * Index of the last call whose "name args" text contains any of the needles, -1 when none does.
 * With `files`, the call must also name one of them, by base name: an edit of a file the patch
 * submits, not of the agent's own scratch script. A call may name a file by any path
 * (`cd pkg && sed -i … x.py`), so the base name is what is looked for.
 */
export function lastCall(calls: readonly ToolCallView[], needles: readonly string[], files?: readonly string[]): number {
  const names = files && [...new Set(files.map((f) => f.slice(f.lastIndexOf("/") + 1)).filter((n) => n !== ""))];
  const anyNeedle = needlePattern(needles);
  for (let i = calls.length - 1; i >= 0; i--) {
    const text = `${calls[i]!.name} ${calls[i]!.args}`;
    if (anyNeedle.test(text) && (!names || names.some((n) => text.includes(n)))) return i;
  }
  return -1;
}

// By the list, for a rule's constant list the compiled closure passes on as it is; by the needles'
// text for a list built anew on each call (the CEL interpreter's), so no call compiles a regex again.
const patternsByList = new WeakMap<readonly string[], RegExp>();
const patternsByText = new Map<string, RegExp>();

/** One regex matching any of the needles as a substring: one scan of a call's text instead of one per needle. */
function needlePattern(needles: readonly string[]): RegExp {
  const known = patternsByList.get(needles);
  if (known) return known;
  const key = needles.join("\u0000");
  let pattern = patternsByText.get(key);
  if (!pattern) {
    pattern = needles.length === 0 ? /(?!)/ : new RegExp(needles.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));
    patternsByText.set(key, pattern);
  }
  patternsByList.set(needles, pattern);
  return pattern;
}
