import { readFileSync } from "node:fs";

/**
 * The commands of each ```sh block under a markdown heading, as a reader would type them: one per
 * line, a trailing `# comment` dropped. Tests run these as written, so a doc that drifts from the
 * product fails its test.
 */
export function docCommands(markdownFile: string, heading: string): string[][] {
  const text = readFileSync(markdownFile, "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${markdownFile}: no heading "${heading}"`);
  const next = text.slice(start + heading.length + 2).search(/\n#{1,6} /);
  const section = next < 0 ? text.slice(start) : text.slice(start, start + heading.length + 2 + next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) =>
    block[1]!
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, "").trim())
      .filter(Boolean),
  );
}
