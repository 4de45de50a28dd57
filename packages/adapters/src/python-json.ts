/**
 * Parses one JSON line written by Python's `json.dumps`, which writes NaN and ±Infinity as bare
 * `NaN`, `Infinity` and `-Infinity` (not JSON). Those tokens, outside strings, become null, as the
 * contract writes a value JSON cannot hold; anything else that is not JSON still throws.
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const fixed = replaceNonFiniteTokens(text);
    if (fixed === text) throw error;
    return JSON.parse(fixed);
  }
}

function replaceNonFiniteTokens(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      continue;
    }
    const token = /^(-?Infinity|NaN)/.exec(text.slice(i, i + 9))?.[0];
    if (token) {
      out += "null";
      i += token.length - 1;
      continue;
    }
    out += c;
  }
  return out;
}
