/**
 * A LIKE pattern matching `text` anywhere, with `%`, `_` and `\` taken literally: a search for
 * "50%" means the characters, not "50 then anything". Backslash is Postgres' default LIKE escape.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
