/** A progress line on stderr for reading `size` bytes, redrawn in place; `last` ends it. */
export function byteProgress(label: string, size: number): (done: number, last?: boolean) => void {
  return (done, last = false) => process.stderr.write(`\r${label}: ${Math.round((100 * done) / Math.max(1, size))}% of ${(size / 1e6).toFixed(1)} MB${last ? "\n" : ""}`);
}
