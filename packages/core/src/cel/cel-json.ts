import { isCelList, isCelMap, isCelUint, type CelValue } from "@bufbuild/cel";

/** A CEL result as plain JSON (ints as numbers), for evidence and reports. */
export function celToJson(v: CelValue): unknown {
  if (typeof v === "bigint") return Number(v);
  if (isCelUint(v)) return Number(v.value);
  if (isCelList(v)) return Array.from(v, celToJson);
  if (isCelMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, val] of v) out[String(isCelUint(k) ? k.value : k)] = celToJson(val);
    return out;
  }
  if (v instanceof Uint8Array) return Array.from(v);
  if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  return String(v);
}
