import { canonicalJson } from "./canonical-json.ts";
import type { Intervention } from "./intervention.ts";

/**
 * Identity of an intervention for "was this tried before": its factor and its patch, never its
 * wording, so a reworded hypothesis does not make an old change new.
 */
export function interventionKey(i: Pick<Intervention, "factor" | "patch">): string {
  return `${i.factor} ${canonicalJson(i.patch)}`;
}
