import { normaliseErrorText } from "./normalise-error.ts";

// A Python (or Java/JS) exception line: dotted type name, then its message. Types that do not end
// in one of these words (SystemExit aside) are too easily confused with prose.
const EXCEPTION_LINE = /^\s*(?:[A-Za-z_][\w]*\.)*([A-Z][\w]*(?:Error|Exception|Exit|Interrupt|Failure|DoesNotExist|NotFound|Warning))(?::\s?(.*))?$/;
// The repr form graders record: TypeError("'int' object is not subscriptable"), TimeoutException().
const EXCEPTION_REPR = /^\s*([A-Z][\w]*(?:Error|Exception|Exit|Interrupt))\((.*)\)\s*$/;
export const ERROR_WORDS = /\b(error|errors|failed|failure|fatal|not found|no such|cannot|can't|couldn't|unable|denied|invalid|unrecognized|unknown|missing|refused|timed out|timeout|abort(ed)?|segmentation fault|killed|usage:)/i;
// Wrapper tags some agent formats put around a command's output (mini-swe-agent's <returncode>, <output>).
export const WRAPPER_LINE = /^\s*(<\/?[a-z_]+>\s*)+$|^\s*<returncode>\d+<\/returncode>\s*$/i;

/** The last exception line of a text, normalised ("KeyError: <q>"), with the line as it was. */
export function exceptionIn(text: string): { exception: string; raw: string } | null {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const m = EXCEPTION_LINE.exec(line) ?? EXCEPTION_REPR.exec(line);
    if (!m) continue;
    let message = (m[2] ?? "").trim();
    // A repr's argument is itself quoted: TypeError("'int' object …") holds the message in quotes.
    if (EXCEPTION_REPR.test(line)) message = message.replace(/^(["'])(.*)\1$/s, "$2");
    const normalised = message === "" ? "" : normaliseErrorText(message);
    return { exception: normalised === "" ? m[1]! : `${m[1]}: ${normalised}`, raw: line.trim() };
  }
  return null;
}

/** The lines of a tool output, without blank lines and the agent format's wrapper tags. */
export function outputLines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "" && !WRAPPER_LINE.test(l));
}

/** The last line of an output that says what went wrong, or null. */
export function errorLineIn(text: string): string | null {
  const lines = outputLines(text);
  for (let i = lines.length - 1; i >= 0; i--) if (ERROR_WORDS.test(lines[i]!)) return lines[i]!.trim();
  return null;
}
