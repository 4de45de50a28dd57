/**
 * One argument for a POSIX shell, taken literally: inside single quotes nothing is special except
 * the single quote itself, which is closed, escaped and reopened (`'` → `'\''`).
 */
export function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** A command line whose words are exactly `args`. */
export function shellJoin(args: readonly string[]): string {
  return args.map(shellQuote).join(" ");
}
