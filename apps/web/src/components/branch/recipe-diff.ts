type Flat = Map<string, string>;

function flatten(value: unknown, path: string, out: Flat): Flat {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, `${path}/${k}`, out);
  } else out.set(path || "/", JSON.stringify(value));
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
