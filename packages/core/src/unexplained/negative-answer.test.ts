import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { REAL_DIR } from "../__fixtures__/real-data.ts";
import { isNegativeAnswer } from "./negative-answer.ts";
import { shellParts, statusCommands } from "./shell-command.ts";

interface Call {
  instance: string;
  command: string;
  observation: string;
}

/** Every bash call of real mini-swe-agent trajectories with its observation (`<returncode>N</returncode>` and the output). */
function realCalls(file: string): Call[] {
  return gunzipSync(readFileSync(file))
    .toString("utf8")
    .trim()
    .split("\n")
    .flatMap((line) => {
      const { instance_id, traj } = JSON.parse(line) as { instance_id: string; traj: { messages: { role: string; content: unknown }[] } };
      const calls: Call[] = [];
      let command: string | undefined;
      for (const m of traj.messages) {
        if (typeof m.content !== "string") continue;
        if (m.role === "assistant") command = [...m.content.matchAll(/```bash\s*\n([\s\S]*?)\n```/g)].map((b) => b[1]!).at(0);
        else if (m.role === "user" && m.content.startsWith("<returncode>") && command !== undefined) calls.push({ instance: instance_id, command, observation: m.content });
      }
      return calls;
    });
}

const calls = [...realCalls(`${REAL_DIR}/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz`), ...realCalls(`${REAL_DIR}/../real-oos/mini-swe-agent-gemini-3-pro-oos.jsonl.gz`)];
const failedCalls = calls.filter((c) => !c.observation.startsWith("<returncode>0</returncode>"));

/** The real failed call of `instance` running `command`: the test fails if the fixtures do not hold it. */
function realCall(instance: string, command: string): Call {
  const found = failedCalls.find((c) => c.instance === instance && c.command === command);
  expect(found, `a real failed call of ${instance}: ${command}`).toBeDefined();
  return found!;
}

describe("a failed call that only answered no, on real mini-swe-agent trajectories", () => {
  it("is a grep that matched nothing (exit 1, no output), alone or at the end of a pipe", () => {
    for (const [instance, command] of [
      ["matplotlib__matplotlib-25479", `grep -r "rc('image', cmap=" lib/matplotlib`],
      ["sphinx-doc__sphinx-11510", `grep "REPLACE_ME" reproduce_issue/build/index.html`],
      ["matplotlib__matplotlib-26466", `grep -n "def set_" lib/matplotlib/text.py | grep Annotation`],
      ["django__django-14376", `pip freeze | grep -i mysql`],
    ]) {
      const call = realCall(instance!, command!);
      expect(call.observation).toBe("<returncode>1</returncode>\n<output>\n</output>");
      expect(isNegativeAnswer(call.command, call.observation), command).toBe(true);
    }
  });

  it("keeps grep's note that a binary file matched from making a no into a failure", () => {
    const call = realCall("django__django-13212", `grep -r "raise ValidationError" django/core | grep -v "validators.py"`);
    expect(call.observation).toContain("binary file matches");
    expect(isNegativeAnswer(call.command, call.observation)).toBe(true);
  });

  it("is not a grep that could not read its file (exit 2), nor one whose input came from a command that failed", () => {
    const missing = realCall("scikit-learn__scikit-learn-14710", `grep "Y_DTYPE =" sklearn/ensemble/_hist_gradient_boosting/common.py`);
    expect(missing.observation).toMatch(/^<returncode>2<\/returncode>[\s\S]*No such file or directory/);
    expect(isNegativeAnswer(missing.command, missing.observation)).toBe(false);
    const lsFailed = realCall("matplotlib__matplotlib-22871", "ls -R matplotlib | grep dates.py");
    expect(lsFailed.observation).toMatch(/^<returncode>1<\/returncode>[\s\S]*ls: cannot access/);
    expect(isNegativeAnswer(lsFailed.command, lsFailed.observation)).toBe(false);
  });

  it("is not `find | xargs grep` (xargs gives 123 for grep's no and its errors alike) nor a build before the grep that raised", () => {
    const xargs = realCall("scikit-learn__scikit-learn-15100", `find sklearn -name "*test*" | xargs grep -l "strip_accents_unicode"`);
    expect(isNegativeAnswer(xargs.command, xargs.observation)).toBe(false);
    const build = realCall("sphinx-doc__sphinx-9258", `sed -i 's/MyClass/example.MyClass/' reproduction/example.py && cd reproduction && make html && grep "MyClass" _build/html/index.html`);
    expect(build.observation).toContain("SyntaxError: invalid syntax");
    expect(isNegativeAnswer(build.command, build.observation)).toBe(false);
  });

  it("is never a call that ran Python, a test runner or anything but a predicate", () => {
    const negative = failedCalls.filter((c) => isNegativeAnswer(c.command, c.observation));
    expect(negative.length).toBeGreaterThan(100);
    for (const c of negative) expect(statusCommands(c.command).some((s) => /^(python|pytest|bin\/test|\.\/tests\/runtests\.py)/.test(s.trim())), c.command).toBe(false);
    // A failed grep with an empty output is always the no of grep.
    const emptyGreps = failedCalls.filter((c) => c.observation === "<returncode>1</returncode>\n<output>\n</output>" && /(^|\|)\s*grep\b[^|]*$/.test(c.command));
    expect(emptyGreps.length).toBeGreaterThan(100);
    expect(emptyGreps.filter((c) => !isNegativeAnswer(c.command, c.observation))).toEqual([]);
  });
});

describe("a failed call that only answered no, from the tools themselves", () => {
  const dir = mkdtempSync(join(tmpdir(), "negative-answer-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "a.py"), "def f():\n    raise ValueError('invalid input')\n");
  writeFileSync(join(dir, "b.py"), "def f():\n    raise TypeError('missing argument: error')\n");

  /** The command run by bash here, its status and output written the way mini-swe-agent records an observation. */
  function run(command: string): { code: number; observation: string } {
    // No start-up files: a user's ~/.bashrc may print to stderr.
    const r = spawnSync("bash", ["--norc", "--noprofile", "-c", command], { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LC_ALL: "C" } });
    return { code: r.status!, observation: `<returncode>${r.status}</returncode>\n<output>\n${r.stdout}${r.stderr}</output>` };
  }

  it.each([
    ["grep -n 'no_such_name' a.py", 1, true],
    ["grep -rq 'no_such_name' .", 1, true],
    ["cat a.py | grep -c 'no_such_name'", 1, true],
    ["test -f setup.cfg", 1, true],
    ["[ -d .git ]", 1, true],
    ["[[ -n '' ]]", 1, true],
    ["which no-such-optional-tool", 1, true],
    ["command -v no-such-optional-tool", 1, true],
    // The differences themselves hold error words ("invalid", "missing", "error") and exception names.
    ["diff a.py b.py", 1, true],
    ["diff -u a.py b.py", 1, true],
    ["cmp a.py b.py", 1, true],
    ["git diff --no-index a.py b.py", 1, true],
    ["grep 'x' no_such_file.py", 2, false],
    ["[ 1 -gt ]", 2, false],
    ["diff a.py no_such_file.py", 2, false],
    ["cmp a.py no_such_file.py", 2, false],
    ["cd no_such_dir && grep -n 'f' a.py", 1, false],
    ["grep -n 'def' a.py && python3 -c 'import sys; sys.exit(1)'", 1, false],
    ["python3 -c 'import sys; sys.exit(1)'", 1, false],
    ["grep -n 'raise' a.py | python3 -c 'import sys; sys.exit(1)'", 1, false],
  ] as const)("%s exits %i: a no, %s", (command, code, negative) => {
    const result = run(command);
    expect(result.code).toBe(code);
    expect(isNegativeAnswer(command, result.observation)).toBe(negative);
    // Formats that record only that the call failed (no status in the output) are read the same way.
    expect(isNegativeAnswer(command, result.observation.replace(/^<returncode>\d+<\/returncode>\n/, ""))).toBe(negative);
  });
});

describe("reading a command line", () => {
  it("splits at pipes, lists and newlines outside quotes only", () => {
    expect(shellParts(`grep -E "a|b" f.py && python -c "import x; x.run()" 2>&1 | tail`).map((p) => [p.text.trim(), p.after])).toEqual([
      [`grep -E "a|b" f.py`, null],
      [`python -c "import x; x.run()" 2>&1`, "&&"],
      ["tail", "|"],
    ]);
  });

  it("names the commands whose status the shell reports: each pipeline's last of the last list", () => {
    expect(statusCommands("cd /testbed\ngrep -n x a.py | head -5 && pip list | grep mysql")).toEqual(["head -5", "grep mysql"]);
    expect(statusCommands("grep x a.py; ")).toEqual(["grep x a.py"]);
  });
});
