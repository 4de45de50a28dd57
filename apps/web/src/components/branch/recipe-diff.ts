type Flat = Map<string, string>;

// Leaves only (arrays by index too), so a value shown is a number, a string or a flag, never JSON.
function flatten(value: unknown, path: string, out: Flat): Flat {
  if (Array.isArray(value) && value.length === 0) out.set(path || "/", "[]");
  else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) flatten(v, `${path}/${k}`, out);
  else out.set(path || "/", JSON.stringify(value));
  return out;
}

export interface RecipeChange {
  path: string;
  before: string | null;
  after: string | null;
}

/** Leaf-by-leaf differences between two canonical recipes, as JSON-pointer paths. */
export function recipeDiff(parentCanonical: string | null, canonical: string): RecipeChange[] {
  const before = parentCanonical ? flatten(JSON.parse(parentCanonical), "", new Map()) : new Map<string, string>();
  const after = flatten(JSON.parse(canonical), "", new Map());
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths.filter((p) => before.get(p) !== after.get(p)).map((path) => ({ path, before: before.get(path) ?? null, after: after.get(path) ?? null }));
}

/** The leaves on which two or more recipes differ: one row per JSON-pointer path, one value per recipe. */
export function recipeDifferences(canonicals: string[]): { path: string; values: (string | null)[] }[] {
  const flats = canonicals.map((c) => flatten(JSON.parse(c), "", new Map()));
  const paths = [...new Set(flats.flatMap((f) => [...f.keys()]))].sort();
  return paths.map((path) => ({ path, values: flats.map((f) => f.get(path) ?? null) })).filter((row) => new Set(row.values).size > 1);
}
