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
 * (`cd pkg && sed -i … x.py`), so the base name is what is looked for. SWE-agent's `edit N:M` names
 * no file: it edits the file its last `open` or `create` opened, so that file is the one it names.
 */
export function lastCall(calls: readonly ToolCallView[], needles: readonly string[], files?: readonly string[]): number {
  return matchingCalls(calls, needles, files).at(-1) ?? -1;
}

/** Index of the first call `lastCall` would consider, -1 when none: e.g. the first edit of a submitted file. */
export function firstCall(calls: readonly ToolCallView[], needles: readonly string[], files?: readonly string[]): number {
  return matchingCalls(calls, needles, files)[0] ?? -1;
}

function matchingCalls(calls: readonly ToolCallView[], needles: readonly string[], files?: readonly string[]): number[] {
  const names = files && [...new Set(files.map(baseName).filter((n) => n !== ""))];
  const anyNeedle = needlePattern(needles);
  const found: number[] = [];
  let open = "";
  for (let i = 0; i < calls.length; i++) {
    const { name, args } = calls[i]!;
    if (name === "open" || name === "create") open = baseName(openedPath(args));
    const text = `${name} ${args}`;
    if (anyNeedle.test(text) && (!names || names.some((n) => text.includes(n) || (name === "edit" && n === open)))) found.push(i);
  }
  return found;
}

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** The path an `open`/`create` call of SWE-agent names: the first word after the command's name. */
function openedPath(args: string): string {
  const command = /"command":"([^"\\]*)/.exec(args)?.[1] ?? "";
  return command.trim().split(/\s+/)[1]?.replace(/^["']|["']$/g, "") ?? "";
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
