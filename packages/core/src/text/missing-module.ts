// Python's "No module named x" (ModuleNotFoundError, or `python -m x`): the dotted name, quoted or not.
const NO_MODULE = /No module named '?([A-Za-z_][\w.]*)/g;

/**
 * The top-level name of the first module a tool output says is missing, or "" when none is. `python
 * -m pkg` on a package without `__main__` is a misuse of the command, not a missing module.
 */
export function missingModule(output: string): string {
  for (const m of output.matchAll(NO_MODULE)) {
    const name = m[1]!.replace(/\.$/, "");
    if (!name.endsWith(".__main__")) return name.split(".")[0]!;
  }
  return "";
}
