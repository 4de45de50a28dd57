/**
 * `text` with each comma that closes a JSON array or object (`[1, 2,]`, `{"a": 1,}`) removed, strings
 * left as they are. Hand-edited summaries carry them (CodeR's published `results.json` has one), and
 * such a comma has one reading; anything else JSON.parse refuses is still refused.
 */
export function withoutTrailingCommas(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") {
        out += c + (text[i + 1] ?? "");
        i++;
        continue;
      }
      if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === ",") {
      let next = i + 1;
      while (next < text.length && /\s/.test(text[next]!)) next++;
      if (text[next] === "]" || text[next] === "}") continue;
    }
    out += c;
  }
  return out;
}
