/** How a shell command line is read to say which program it ran: a reading, not a shell parser. */

/** One simple command of a command line, and the operator that joined it to the one before. */
export interface ShellPart {
  text: string;
  /** `|` (a pipe), `&&` / `||` (an and-or list), `;` (a new list: `;`, `&` or a newline), or null for the first. */
  after: "|" | "&&" | "||" | ";" | null;
}

// A here-document's body (cat <<'EOF' > x.py … EOF) is data, not commands.
const HEREDOC = /(<<-?\s*(["']?)(\w+)\2)([^\n]*)\n[\s\S]*?\n[ \t]*\3[ \t]*(?=\n|$|[;&|])/g;

/**
 * The simple commands of a command line, split at `|`, `&&`, `||`, `;`, `&` and newlines outside
 * quotes: `grep -E "a|b" f` is one command, `python -c "import x; x.run()"` too.
 */
export function shellParts(command: string): ShellPart[] {
  const text = command.replace(HEREDOC, "$1$4");
  const parts: ShellPart[] = [];
  let current = "";
  let after: ShellPart["after"] = null;
  let quote: '"' | "'" | null = null;
  const cut = (next: ShellPart["after"]) => {
    parts.push({ text: current, after });
    current = "";
    after = next;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') current += c + (text[++i] ?? "");
      else {
        if (c === quote) quote = null;
        current += c;
      }
      continue;
    }
    const two = text.slice(i, i + 2);
    if (c === "\\") current += c + (text[++i] ?? "");
    else if (c === '"' || c === "'") (quote = c), (current += c);
    else if (two === "&&" || two === "||") cut(two), i++;
    else if (two === "|&") cut("|"), i++;
    // `2>&1`, `&>` and `>&` redirect; they join nothing.
    else if (c === "&" && (text[i - 1] === ">" || text[i + 1] === ">")) current += c;
    else if (c === "|") cut("|");
    else if (c === ";" || c === "&" || c === "\n") cut(";");
    else current += c;
  }
  cut(null);
  return parts.filter((p) => p.text.trim() !== "");
}

// Words before a command that run it rather than being it (with their options and durations).
const WRAPPERS = new Set(["sudo", "env", "time", "nohup", "exec", "timeout", "stdbuf"]);
// Words before a command that are not its program, for naming it: `command x` and `xargs x` run x.
const PREFIX_WORDS = new Set([...WRAPPERS, "command", "xargs"]);
// Commands that only set up the next one.
export const SETUP_PROGRAMS = new Set(["cd", "export", "source", ".", "set", "pushd", "popd", "true", "unset", "echo", "printf", "sleep", "clear"]);

/** A simple command's words from its program on: variable assignments and the given prefix words (with their options) skipped. */
export function commandWords(part: string, prefixes: ReadonlySet<string> = WRAPPERS): string[] {
  const words = part.trim().split(/\s+/).filter((w) => w !== "");
  let i = 0;
  while (i < words.length && (/^\w+=/.test(words[i]!) || prefixes.has(words[i]!) || (i > 0 && (/^-/.test(words[i]!) || /^\d+[smh]?$/.test(words[i]!))))) i++;
  return words.slice(i);
}

/** An installed program by its name (/usr/bin/python3 is python3); a repository's own runner as the repository names it (bin/test). */
export function programName(word: string): string {
  const bare = word.replace(/^["'(]+|["')]+$/g, "");
  return bare.startsWith("/") ? bare.split("/").pop()! : bare.replace(/^\.\//, "");
}

function programOfPart(part: string): string | null {
  const words = commandWords(part, PREFIX_WORDS);
  const word = words[0];
  if (word === undefined || /^-/.test(word)) return null;
  const program = programName(word);
  if (SETUP_PROGRAMS.has(program) || program === "") return null;
  const python = /^python(\d(\.\d+)?)?$/.test(program);
  if (python && words[1] === "-m" && words[2]) return `python -m ${words[2]}`;
  if (python && words[1] === "-c") return "python -c";
  return python ? "python" : program;
}

/**
 * The program a shell command runs: of a chain (`cd x && cat > t.py <<EOF … EOF && python t.py`) the
 * last step that is not set-up, since a chain stops at its first failure and set-up rarely fails; of
 * a pipeline (`python t.py 2>&1 | tail`) the first command, whose output the rest only trims.
 */
export function programOf(command: string): string | null {
  const firsts = shellParts(command).filter((p) => p.after !== "|");
  for (let i = firsts.length - 1; i >= 0; i--) {
    const program = programOfPart(firsts[i]!.text);
    if (program !== null) return program;
  }
  return null;
}

/**
 * The commands whose exit status the shell can report as the whole line's: in its last list (after
 * the last `;`, `&` or newline) the last command of each pipeline, since `a && b` stops at the first
 * failure and a pipeline's status is its last command's.
 */
export function statusCommands(command: string): string[] {
  const parts = shellParts(command);
  const lastList = parts.slice(parts.findLastIndex((p) => p.after === ";" || p.after === null));
  return lastList.filter((p, i) => lastList[i + 1]?.after !== "|").map((p) => p.text.trim());
}
