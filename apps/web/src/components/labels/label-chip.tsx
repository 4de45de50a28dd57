/** A label as every page shows it: its name with its detector's reviewed precision in the run, or "not reviewed". */
export function LabelChip({ quality, validity = false }: { quality: string; validity?: boolean }) {
  return (
    <span className={`pill${validity ? " bad" : ""}`} data-testid="label-chip">
      {quality}
    </span>
  );
}
