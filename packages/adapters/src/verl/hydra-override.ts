/** A JSON value as recipes' passthrough keys and job adapter settings hold them. */
export type HydraValue = string | number | boolean | null | readonly HydraValue[] | { readonly [key: string]: HydraValue };

// Hydra's grammar reads these unquoted as one string; anything else (spaces, commas, brackets,
// colons, quotes, `=`, `~`) would be parsed as syntax, so such strings are quoted.
const UNQUOTED = /^[A-Za-z0-9_/\-+.%*@?|]+$/;
// ...unless Hydra would read them as another type (a number, a bool, null, inf, nan).
const LOOKS_TYPED = /^([+-]?(\d[\d_]*)?\.?\d*([eE][+-]?\d+)?|true|false|null|[+-]?inf|nan)$/i;

// A Hydra override key: a dotted config path, optionally prefixed `+` (add), `++` (force add) or `~` (delete).
const KEY = /^(\+\+|\+|~)?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function quote(text: string): string {
  // Inside a quoted Hydra string only the quote and the backslashes before it (or at the end) are escaped.
  return `'${text.replace(/(\\*)('|$)/g, (_m, slashes: string, q: string) => `${slashes}${slashes}${q ? "\\'" : ""}`)}'`;
}

/** One value in Hydra's override grammar (`1e-06`, `true`, `null`, `[console,file]`, `'a b'`). */
export function hydraValue(value: HydraValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`a Hydra override needs a finite number, got ${value}`);
    return String(value);
  }
  if (typeof value === "string") return UNQUOTED.test(value) && !LOOKS_TYPED.test(value) ? value : quote(value);
  if (Array.isArray(value)) return `[${value.map((v: HydraValue) => hydraValue(v)).join(",")}]`;
  const entries = Object.entries(value as Record<string, HydraValue>);
  return `{${entries.map(([k, v]) => `${hydraKey(k)}:${hydraValue(v)}`).join(",")}}`;
}

function hydraKey(key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new RangeError(`not a Hydra dictionary key: ${JSON.stringify(key)}`);
  return key;
}

/** `key=value` for Hydra's command line; the key is checked so a typo cannot smuggle in syntax. */
export function hydraOverride(key: string, value: HydraValue): string {
  if (!KEY.test(key)) throw new RangeError(`not a Hydra override key: ${JSON.stringify(key)}`);
  return key.startsWith("~") ? key : `${key}=${hydraValue(value)}`;
}
