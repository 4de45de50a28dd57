/** Paths a unified diff (git or plain) touches, in order of first appearance, /dev/null excluded. */
export function patchFiles(patch: string): string[] {
  const files = new Set<string>();
  for (const m of patch.matchAll(/^(?:diff --git a\/(\S+) b\/(\S+)|(?:---|\+\+\+) (?:[ab]\/)?(\S+))/gm)) {
    for (const f of [m[1], m[2], m[3]]) {
      if (f !== undefined && f !== "/dev/null") files.add(f);
    }
  }
  return [...files];
}

/**
 * Paths of files whose existing lines the diff removes or changes, or that it deletes: a file it
 * creates, or one it only adds lines to (a new test appended to a test module), is not among them.
 */
export function patchChangedFiles(patch: string): string[] {
  const files = new Set<string>();
  let current: string | undefined;
  let inHunk = false;
  for (const line of patch.split("\n")) {
    const header = /^diff --git a\/(\S+) b\/\S+/.exec(line);
    if (header) {
      current = header[1];
      inHunk = false;
    } else if (!inHunk && line.startsWith("--- ")) {
      const from = line.slice(4).trim().replace(/^a\//, "").split("\t")[0]!;
      current = from === "/dev/null" ? undefined : from;
    } else if (!inHunk && line.startsWith("deleted file mode") && current) files.add(current);
    else if (line.startsWith("@@")) inHunk = true;
    else if (inHunk && line.startsWith("-") && current) files.add(current);
    else if (inHunk && !/^[ +\\-]/.test(line) && line !== "") inHunk = false;
  }
  return [...files];
}
