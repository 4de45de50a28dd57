import { trainerMetrics } from "@evotrainer/adapters";
import type { Database } from "@evotrainer/db";

/** The trainer's metrics of a branch's last logged step (`trainer/<key>` MetricPoints), as health rules read them. */
export async function lastTrainerMetrics(db: Database, branchId: string): Promise<Record<string, number>> {
  const last = await db.metricPoint.aggregate({ where: { branchId, name: { startsWith: "trainer/" } }, _max: { step: true } });
  if (last._max.step === null) return {};
  const points = await db.metricPoint.findMany({ where: { branchId, step: last._max.step, name: { startsWith: "trainer/" } } });
  return trainerMetrics(Object.fromEntries(points.map((p) => [p.name.slice("trainer/".length), p.value])));
}
