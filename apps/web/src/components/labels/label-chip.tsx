import { Fragment } from "react";

/** A label as every page shows it: its name with its detector's reviewed precision in the run, or "not reviewed". */
export function LabelChip({ quality, validity = false }: { quality: string; validity?: boolean }) {
  // Label names are snake_case: a narrow cell breaks them after an underscore rather than mid-word.
  const parts = quality.split("_");
  return (
    <span className={`pill${validity ? " bad" : ""}`} data-testid="label-chip">
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {i < parts.length - 1 ? `${part}_` : part}
        </Fragment>
      ))}
    </span>
  );
}
