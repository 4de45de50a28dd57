import type { ZodError } from "zod";

/**
 * A failed input as a person reads it: the first problem with the field it is about ("email: give the
 * invitee's email address"), and how many more there are. Messages that already name their field keep it once.
 */
export function zodSentence(error: ZodError): string {
  const [first, ...rest] = error.issues;
  if (!first) return "The input is not valid.";
  const field = first.path.map(String).join(".") || "input";
  const text = first.message.startsWith(`${field}:`) ? first.message : `${field}: ${first.message}`;
  const more = rest.length === 0 ? "" : ` (and ${rest.length} more problem${rest.length === 1 ? "" : "s"} with the input)`;
  const sentence = `${text.replace(/[.!?]$/, "")}${more}`;
  return `${sentence}.`;
}
