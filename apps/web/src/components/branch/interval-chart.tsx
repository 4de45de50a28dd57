/**
 * One confidence interval on an axis that always includes zero and the bar it must clear, so a reader
 * sees at once whether the interval sits above the bar.
 */
export function IntervalChart({ low, high, point, bar, barLabel }: { low: number; high: number; point: number; bar: number; barLabel: string }) {
  const width = 320;
  const pad = 12;
  const lo = Math.min(low, bar, 0);
  const hi = Math.max(high, bar, 0);
  const span = hi - lo || 1;
  const x = (v: number) => pad + ((v - lo) / span) * (width - 2 * pad);
  const clears = low > bar;
  return (
    <svg width={width} height={44} role="img" aria-label={`interval ${low.toFixed(3)} to ${high.toFixed(3)}, must clear ${bar.toFixed(3)}`} data-testid="interval-chart">
      <line x1={pad} x2={width - pad} y1={20} y2={20} stroke="#2a2f3a" />
      <line x1={x(0)} x2={x(0)} y1={8} y2={32} stroke="#8b93a7" />
      <text x={x(0)} y={42} fill="#8b93a7" fontSize={10} textAnchor="middle">
        0
      </text>
      {bar !== 0 && (
        <>
          <line x1={x(bar)} x2={x(bar)} y1={6} y2={34} stroke="#f2cc60" strokeDasharray="3 2" />
          <text x={x(bar)} y={8} fill="#f2cc60" fontSize={10} textAnchor="middle">
            {barLabel}
          </text>
        </>
      )}
      <line x1={x(low)} x2={x(high)} y1={20} y2={20} stroke={clears ? "#7ee787" : "#ff7b72"} strokeWidth={4} strokeLinecap="round" />
      <circle cx={x(point)} cy={20} r={4} fill="#e6edf3" />
    </svg>
  );
}
