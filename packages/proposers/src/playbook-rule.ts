import type { Change } from "./change.ts";

/** Which findings of a health report call for a playbook rule. */
export interface Symptom {
  /** Finding sources: health-rule ids, or `label:<name>` for the label census. */
  sources: readonly string[];
  /**
   * The label the finding must count, at least at `minRate`: a rule over many labels
   * (validity-violations) then only calls for the changes of the labels it actually saw.
   */
  label?: string;
  minRate?: number;
}

/** A finding and the single-factor changes that answer it, most promising first. */
export interface PlaybookRule {
  id: string;
  symptom: Symptom;
  changes: readonly Change[];
}
