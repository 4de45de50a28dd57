/** C0 and C1 controls and DEL: what a terminal acts on instead of printing (escape sequences, bells, carriage returns). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from the server as a terminal line: control characters shown as `\xNN` escapes, so a name
 * stored before the API refused them cannot recolour, move or clear the user's terminal.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
