/** The last fenced code block of a response (the submission), or the whole text when it has none. */
export function codeBlock(text: string): string {
  let last: string | undefined;
  for (const m of text.matchAll(/```[^\n`]*\n([\s\S]*?)```/g)) last = m[1];
  return last ?? text;
}
