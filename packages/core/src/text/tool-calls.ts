/**
 * A tool call as detectors see it: its name, its arguments as canonical JSON text, the output of the
 * result that answered it ("" when none did), whether that result says it succeeded, and whether the
 * tool refused the action.
 */
export interface ToolCallView {
  name: string;
  args: string;
  result?: string;
  ok?: boolean;
  refused?: boolean;
}

// What agent tools answer when they refuse an action and change nothing: SWE-agent's syntax guard
// and windowed editor, the str_replace editors of SWE-agent, OpenHands and Anthropic's tool (old_str
// not found or not unique, a path that does not exist).
const REFUSAL = /Your proposed edit has introduced new syntax error|Your changes have NOT been applied|No replacement was performed|did not appear verbatim in|Please provide a valid path|Invalid `path` parameter/;

/** Whether a tool's answer says it refused the action: nothing ran and no file changed. */
export const isRefusal = (output: string): boolean => REFUSAL.test(output);

// SWE-agent's navigation: they move a window over a file or list matches, and run nothing.
const NAVIGATION = new Set(["open", "goto", "scroll_up", "scroll_down", "search_file", "search_dir", "find_file"]);

export function toolCount(calls: readonly ToolCallView[], name: string): number {
  let n = 0;
  for (const c of calls) if (c.name === name) n++;
  return n;
}

/** Longest run of consecutive identical calls (same tool, same arguments). */
export function toolRepeatRun(calls: readonly ToolCallView[]): number {
  return longestRun(calls, (a, b) => a.name === b.name && a.args === b.args);
}

/**
 * Longest run of consecutive identical actions with identical results: an agent stuck echoing. A
 * repeated call that shows something new each time (scroll_down, goto, a log being followed) is
 * progress, not a loop; the same refused edit resubmitted is one.
 */
export function actionRepeatRun(calls: readonly ToolCallView[]): number {
  return longestRun(calls, (a, b) => a.name === b.name && a.args === b.args && (a.result ?? "") === (b.result ?? ""));
}

function longestRun(calls: readonly ToolCallView[], same: (a: ToolCallView, b: ToolCallView) => boolean): number {
  let best = 0;
  let run = 0;
  for (let i = 0; i < calls.length; i++) {
    const prev = calls[i - 1];
    run = prev !== undefined && same(prev, calls[i]!) ? run + 1 : 1;
    if (run > best) best = run;
  }
  return best;
}

/**
 * Index of the last call whose "name args" text contains any of the needles, -1 when none does. A
 * call the tool refused did nothing, and a navigation call runs nothing: neither is counted. With
 * `files`, the call must also name one of them, by base name: an edit of a file the patch submits,
 * not of the agent's own scratch script. A call may name a file by any path
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

/**
 * Whether the environment has the Python module: a call ran Python on it (`-m m`, `import m`,
 * `from m ` in a python command, or `m` as the command) and succeeded. Not when the agent made the
 * success itself: it installed the module (pip, conda, apt), mocked it (`sys.modules['m']`) or wrote
 * an `m.py`; nor a search for the text (`grep "import m"` succeeds without importing anything).
 */
export function moduleRanOk(calls: readonly ToolCallView[], module: string): boolean {
  if (!/^[A-Za-z_]\w*$/.test(module)) return false;
  const madeByAgent = new RegExp(`(pip3?|conda|apt(-get)?)\\s+install\\b[^\\n]*\\b${module}\\b|sys\\.modules\\[\\\\?['"]${module}\\b|\\b${module}\\.py\\b`);
  if (calls.some((c) => madeByAgent.test(c.args))) return false;
  const command = [`"command":"${module} `, `&& ${module} `, `; ${module} `];
  const inPython = [`-m ${module}`, `import ${module}`, `from ${module} `];
  return calls.some(
    (c) =>
      c.ok === true &&
      !/\b(grep|rg)\b/.test(c.args) &&
      (command.some((f) => c.args.includes(f)) || (/python/.test(c.args) && inPython.some((f) => c.args.includes(f)))),
  );
}

/** Index of the last call whose text contains one of `needles` and one of `also`, -1 when none does: e.g. a Python heredoc that imports the repository. */
export function lastCallBoth(calls: readonly ToolCallView[], needles: readonly string[], also: readonly string[]): number {
  const other = needlePattern(also);
  const found = matchingCalls(calls, needles).filter((i) => other.test(`${calls[i]!.name} ${calls[i]!.args}`));
  return found.at(-1) ?? -1;
}

function matchingCalls(calls: readonly ToolCallView[], needles: readonly string[], files?: readonly string[]): number[] {
  const names = files && [...new Set(files.map(baseName).filter((n) => n !== ""))];
  const anyNeedle = needlePattern(needles);
  const found: number[] = [];
  let open = "";
  for (let i = 0; i < calls.length; i++) {
    const { name, args, refused } = calls[i]!;
    if (name === "open" || name === "create") open = baseName(openedPath(args));
    if (refused || NAVIGATION.has(name)) continue;
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
