export interface ByteProgress {
  show(label: string, done: number, size: number): void;
  /** Ends the line redrawn in place, if one was drawn. */
  end(): void;
}

/**
 * How far sources have been read, on stderr. On a terminal, one line redrawn in place; in a log (CI,
 * a file, a pipe) a line per source once it is read, so that hundreds of files do not run together
 * into one line of carriage returns.
 */
export function byteProgress(): ByteProgress {
  const terminal = process.stderr.isTTY === true;
  let drawn = false;
  return {
    show(label, done, size) {
      const line = `${label}: ${Math.round((100 * done) / Math.max(1, size))}% of ${(size / 1e6).toFixed(1)} MB`;
      if (terminal) {
        // Clear to the end of the line: the last label may have been longer.
        process.stderr.write(`\r${line}\x1b[K`);
        drawn = true;
      } else if (done >= size) process.stderr.write(`${line}\n`);
    },
    end() {
      if (drawn) process.stderr.write("\n");
      drawn = false;
    },
  };
}
