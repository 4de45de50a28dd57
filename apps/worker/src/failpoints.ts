import { writeFileSync } from "node:fs";

/** Named moments of the loop where a fault can be injected: see `failpoints`. */
export type Failpoint = (name: string) => Promise<void>;

/**
 * Fault injection for crash tests (the failpoints of etcd and TiKV). With `EVO_FAILPOINT=name:n`, the
 * n-th time this process reaches the point `name` it writes `name:n` to `EVO_FAILPOINT_FILE` and stops
 * there for good, so a test can SIGKILL the worker at exactly that moment of the loop and check that a
 * restart loses and duplicates nothing. Several points (`a:1,b:2`) stop at whichever comes first.
 * Unset (always, outside such tests), a point is a no-op.
 */
export function failpoints(spec: string | undefined, file: string | undefined): Failpoint {
  if (!spec || !file) return async () => {};
  const targets = new Map(
    spec.split(",").map((one) => {
      const at = one.lastIndexOf(":");
      return [one.slice(0, at), Number(one.slice(at + 1))] as const;
    }),
  );
  const hits = new Map<string, number>();
  return async (name) => {
    const nth = targets.get(name);
    if (nth === undefined) return;
    const hit = (hits.get(name) ?? 0) + 1;
    hits.set(name, hit);
    if (hit !== nth) return;
    writeFileSync(file, `${name}:${nth}`);
    await new Promise<never>(() => {});
  };
}
