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
