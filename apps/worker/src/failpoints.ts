import { writeFileSync } from "node:fs";

/** Named moments of the loop where a fault can be injected: see `failpoints`. */
export type Failpoint = (name: string) => Promise<void>;

/**
 * Fault injection for crash tests (the failpoints of etcd and TiKV). With `EVO_FAILPOINT=name:n`, the
 * n-th time this process reaches the point `name` it writes `name:n` to `EVO_FAILPOINT_FILE` and stops
 * there for good, so a test can SIGKILL the worker at exactly that moment of the loop and check that a
 * restart loses and duplicates nothing. Unset (always, outside such tests), a point is a no-op.
 */
export function failpoints(spec: string | undefined, file: string | undefined): Failpoint {
  if (!spec || !file) return async () => {};
  const at = spec.lastIndexOf(":");
  const target = spec.slice(0, at);
  const nth = Number(spec.slice(at + 1));
  let hits = 0;
  return async (name) => {
    if (name !== target || ++hits !== nth) return;
    writeFileSync(file, spec);
    await new Promise<never>(() => {});
  };
}
