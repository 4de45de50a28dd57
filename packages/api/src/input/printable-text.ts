import type { z } from "zod";

/** C0 and C1 controls and DEL: a terminal or log viewer acts on them instead of printing them. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A name a person gives (organization, API key, review label, their own name), refused when it holds
 * a control character, so that it reads the same in the dashboard, a CLI's terminal and a log line.
 */
export function printable(text: z.ZodString) {
  return text.refine((value) => !CONTROL.test(value), { error: "contains a control character (such as an escape or a carriage return); use printable text only" });
}
