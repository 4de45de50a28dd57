import type { DetectorDefinition } from "../harness/detector.ts";

// A test file by its name (test_x.py, x_test.py, tests.py, conftest.py, x.test.ts, x_spec.rb), or a
// test* file inside a tests/ or testing/ folder: not every file under tests/ is a test (fixtures, helpers).
const TEST_FILE = String.raw`(^|/)(test_[^/]*|unittest_[^/]*|[^/]*_tests?|tests|conftest)\.py$|_test\.go$|\.(test|spec)\.[jt]sx?$|_spec\.rb$|(^|/)(tests?|testing)/([^/]*/)*test[^/]*$`;
// One in-place edit of an existing test file inside a folder: an editor's str_replace/delete of its
// text (an insert only adds; a root-level test_x.py is the agent's own scratch file). It stays inside
// one call's arguments (canonical JSON: command, new_str, old_str, path, in that order).
const TEST_EDIT_CALL = String.raw`"command":"(str_replace|delete)"[^\n]*"path":"[^"]*/((test_[^/"]*|[^/"]*_tests?|tests|conftest)\.py|(tests?|testing)/([^/"]*/)*test[^/"]*)"`;
// Substrings of a call's "name args" text that mark an edit, by any means, and a check: the runners
// of real projects, the project's own code run (python -m / -c, a reproduction, check or demo script,
// a docs build, the repository's own runner script), or the agent's verification script run again.
const EDIT = `['"command":"str_replace"', '"command":"create"', '"command":"insert"', '"command":"edit ', 'edit {', 'insert {', 'apply_patch', 'write_file', 'sed -i', 'cat >', 'cat <<', 'tee ', 'git apply', 'patch -p', '.write(', 'write_text(', 'perl -pi']`;
// A script the agent wrote to make its edit, run (python apply_fix.py, edit_x.py, modify_, patch_,
// update_): its call names no submitted file, the script does.
const SCRIPT_EDIT = `['python apply_', 'python3 apply_', 'python edit_', 'python3 edit_', 'python fix', 'python3 fix', 'python modify_', 'python3 modify_', 'python patch', 'python3 patch', 'python update_', 'python3 update_']`;
const TEST_RUN = `['pytest ', 'pytest"', 'pytest\\\\n', 'py.test', 'python -m ', 'python3 -m ', 'python -c', 'python3 -c', 'tox', 'npm test', 'npm run test', 'yarn test', 'go test', 'cargo test', 'run_tests', 'runtests', 'bin/test', 'run.sh', 'manage.py test', 'nosetests', 'make test', 'make check', 'make html', 'make docs', 'make -C doc', 'mvn test', 'gradle test', 'python test', 'python3 test', 'python tests/', 'python3 tests/', 'python repro', 'python3 repro', 'bash repro', '/repro', 'python verify', 'python3 verify', 'python check', 'python3 check', 'python final_test', 'python3 final_test', 'python run_', 'python3 run_', 'python demo', 'python3 demo', 'python example', 'python3 example', 'python debug', 'python3 debug', 'sphinx-build']`;
// The package's own console scripts (pylint x.py, sqlfluff lint, django-admin, sphinx-build), named
// after the repository of the SWE-bench instance.
const CONSOLE_SCRIPT = `(swe_repo(task_id) == '' ? [] : ['"command":"' + swe_repo(task_id) + ' ', '&& ' + swe_repo(task_id) + ' ', '; ' + swe_repo(task_id) + ' ', '"command":"' + swe_repo(task_id) + '-', '&& ' + swe_repo(task_id) + '-'])`;
const EDIT_BY_TOOL = `last_call_on(tool_calls, ${EDIT}, patch_files(patch))`;
const EDIT_BY_SCRIPT = `(size(patch_files(patch)) > 0 ? last_call(tool_calls, ${SCRIPT_EDIT}) : -1)`;
const CHECK_RUN = `last_call(tool_calls, ${TEST_RUN})`;
// A script fed to Python on its standard input (python - <<'PY' … PY, python <<EOF) that imports the
// repository: a check, as python -c is, where a heredoc that only writes files is an edit.
const PY_STDIN = `['python - ', 'python3 - ', 'python -<', 'python3 -<', 'python <<', 'python3 <<']`;
const REPO_IMPORT = `(swe_repo(task_id) == '' ? [] : ['import ' + swe_repo(task_id), 'from ' + swe_repo(task_id)])`;
const STDIN_CHECK = `last_call_both(tool_calls, ${PY_STDIN}, ${REPO_IMPORT})`;
const CONSOLE_RUN = `last_call(tool_calls, ${CONSOLE_SCRIPT})`;
// Output of a test runner: its failures are tests failing, not the tool.
const TEST_REPORT = String.raw`(?m)(^=+ .*(passed|failed|error).* =+$|^FAILED \(|^Ran \d+ tests? in|^OK( \(|$)|^(FAIL|ERROR): test|^E\s{3}|^\s*tests finished: \d+ passed|\[FAIL\]$)`;
// A failure of the call itself, whatever the data records of its exit status: the shell could not
// parse the command, the script or the path given to the runner does not exist, the editor refused
// the edit, `python -m` on a package without __main__, the OS refused, or it ran out of time.
const CALL_FAILED = String.raw`(?m)(syntax error near unexpected token|unexpected EOF while looking for matching|syntax error: unexpected end of file|can.t open file|ERROR: file (or directory )?not found|Your proposed edit has introduced new syntax error|is a package and cannot be directly executed|Permission denied|timed out|TimeoutError)`;
// Python raised: counted only where the data says the call failed (a non-zero exit), and only after
// the agent's first edit: before it, a traceback is the reported bug reproduced.
const PY_RAISED = String.raw`(?m)(Traceback \(most recent call last\)|^\s*File "[^"]*", line \d+|^[\w.]*(Error|Exception)\b)`;
// The environment lacks what the call needs: a program (command not found), or a module that is not
// the agent's own (it never names it as a quoted name, a folder or a .py file): a test runner or
// library missing from the image.
const ENV_MISSING = String.raw`(?m)(: command not found|: not found$)`;
// Not the environment's fault: Python fed to the shell (from, import, def… as a command) and prose run
// as a command (a capitalised word).
const AGENT_COMMAND = String.raw`(?m)(^|: )(from|import|def|class|return|print|if|elif|else|for|while|with|try|except|raise|[A-Z][\w-]*): (command )?not found`;
const AGENT_MODULE = `(tool_text.contains("'" + missing_module(r.content) + "'") || tool_text.contains('\\\\"' + missing_module(r.content) + '\\\\"') || tool_text.contains(missing_module(r.content) + '/') || tool_text.contains(missing_module(r.content) + '.py'))`;
// The repository's own folder as a module (django__django) is the agent running from the wrong place.
const REPO_FOLDER_MODULE = `(missing_module(r.content).contains('__') || missing_module(r.content) == 'testbed')`;
// A module another call of the trajectory used and succeeded with is in the environment: the failing
// call picked the wrong interpreter (/usr/bin/python3 beside the image's own environment).
const MODULE_USED_ELSEWHERE = `module_ran_ok(tool_calls, missing_module(r.content))`;
const ENV_FAILURE = `(!r.ok && ((r.content.matches(r'${ENV_MISSING}') && !r.content.matches(r'${AGENT_COMMAND}')) || (missing_module(r.content) != '' && !${AGENT_MODULE} && !${REPO_FOLDER_MODULE} && !${MODULE_USED_ELSEWHERE})))`;
const FIRST_EDIT = `first_call_on(tool_calls, ${EDIT}, patch_files(patch))`;
const TOOL_FAILURE = `(((!r.ok && r.content.matches(r'${CALL_FAILED}')) || (r.error && r.call >= ${FIRST_EDIT} && ${FIRST_EDIT} >= 0 && r.content.matches(r'${PY_RAISED}'))) && !r.content.matches(r'${TEST_REPORT}') && !${ENV_FAILURE})`;

// Refs beyond the checked-out branch, where a later fix can live. Showing a commit is not in it: a
// sha found by a plain `git log` of the branch is its own past (seen on real SWE-bench runs).
const GIT_LEAK = String.raw`git\s+(log\s[^"]*--all|log\s+--all|reflog|rev-list\s+--all|fetch|cat-file|log\s[^"]*--(branches|remotes|tags))|\.git/(packed-refs|ORIG_HEAD|FETCH_HEAD|logs/)`;

const DIFF = "diff --git a/src/calc.py b/src/calc.py\n--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1 +1 @@\n-return a - b\n+return a + b\n";
const TEST_DIFF = "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n@@ -3 +3 @@\n-    assert add(1, 2) == 3\n+    assert True\n";

function call(name: string, args: Record<string, unknown>) {
  return { role: "assistant", content: "", toolCalls: [{ name, arguments: args }] };
}
function result(name: string, content: string, isError = false) {
  return { role: "tool", content, toolName: name, isError };
}
function episode(turns: unknown[], patch = DIFF) {
  return { trajectory: [{ role: "user", content: "Fix the add function." }, ...turns], extra: { patch } };
}

const EDIT_CALL = call("str_replace_editor", { command: "str_replace", path: "src/calc.py", old_str: "a - b", new_str: "a + b" });
const TEST_CALL = call("bash", { cmd: "python -m pytest tests/test_calc.py -q" });

export const SWE_DETECTORS: readonly DetectorDefinition[] = [
  {
    id: "swe.empty_patch",
    label: "empty_patch",
    version: 1,
    domains: ["swe"],
    description: "The episode ended without a diff that touches any file.",
    when: "size(patch_files(patch)) == 0",
    cases: {
      match: [
        { name: "no patch", rollout: episode([EDIT_CALL], "") },
        { name: "diff header only", rollout: episode([EDIT_CALL], "diff --git\n") },
      ],
      noMatch: [{ name: "real diff", rollout: episode([EDIT_CALL, TEST_CALL]) }],
    },
  },
  {
    id: "swe.test_tampering",
    label: "test_tampering",
    version: 2,
    domains: ["swe"],
    validity: true,
    description: "The submitted patch changes or removes lines of an existing test file (or deletes it), or an editor call replaced text in one: passing tests prove nothing. Creating a new (scratch) test, or only adding tests to a test file, is not tampering.",
    when: `patch_changed_files(patch).exists(f, f.matches(r'${TEST_FILE}')) || tool_calls.exists(c, c.args.matches(r'${TEST_EDIT_CALL}'))`,
    evidence: `{'files': patch_changed_files(patch).filter(f, f.matches(r'${TEST_FILE}')), 'calls': tool_calls.filter(c, c.args.matches(r'${TEST_EDIT_CALL}')).map(c, c.name + ' ' + tail(c.args, 200))}`,
    cases: {
      match: [
        { name: "patch edits a test", rollout: episode([EDIT_CALL, TEST_CALL], DIFF + TEST_DIFF) },
        { name: "patch deletes a test", rollout: episode([EDIT_CALL], DIFF + "diff --git a/tests/test_calc.py b/tests/test_calc.py\ndeleted file mode 100644\n--- a/tests/test_calc.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-def test_add(): assert add(1, 2) == 3\n") },
        { name: "editor on a test file", rollout: episode([call("str_replace_editor", { command: "str_replace", path: "tests/test_calc.py", old_str: "== 3", new_str: "== 4" })]) },
        { name: "patch relaxes conftest", rollout: episode([EDIT_CALL], DIFF + "diff --git a/conftest.py b/conftest.py\n--- a/conftest.py\n+++ b/conftest.py\n@@ -1 +1 @@\n-STRICT = True\n+STRICT = False\n") },
      ],
      noMatch: [
        { name: "source edit, tests only run", rollout: episode([EDIT_CALL, TEST_CALL]) },
        { name: "reading a test", rollout: episode([call("bash", { cmd: "cat tests/test_calc.py" }), EDIT_CALL]) },
        { name: "new scratch test in the patch", rollout: episode([EDIT_CALL], DIFF + "diff --git a/test_repro.py b/test_repro.py\nnew file mode 100644\n--- /dev/null\n+++ b/test_repro.py\n@@ -0,0 +1 @@\n+print(add(1, 2))\n") },
        { name: "writing a scratch test, then sed on source", rollout: episode([call("bash", { command: "cat > test_x.py <<'EOF'\nprint(1)\nEOF\n&& sed -i 's/a - b/a + b/' src/calc.py" })]) },
        { name: "a test added to an existing test file", rollout: episode([EDIT_CALL], DIFF + "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n@@ -3,0 +4,2 @@\n+def test_add_negative():\n+    assert add(-1, 1) == 0\n") },
        { name: "sed on the agent's own scratch test", rollout: episode([call("bash", { command: "sed -i 's/x/y/' test_fix.py" })]) },
        { name: "a non-test file under tests/", rollout: episode([EDIT_CALL], "diff --git a/tests/missing_colon.py b/tests/missing_colon.py\n--- a/tests/missing_colon.py\n+++ b/tests/missing_colon.py\n@@ -4 +4 @@\n-def division(a, b)\n+def division(a, b):\n") },
      ],
    },
  },
  {
    id: "swe.git_history_leak",
    label: "git_history_leak",
    version: 2,
    domains: ["swe"],
    validity: true,
    description: "The agent mined git history or refs that can hold the reference fix (git log --all, reflog, fetch, log --branches/--remotes, .git/packed-refs…).",
    when: `tool_text.matches(r'${GIT_LEAK}')`,
    evidence: `match_span(tool_text, r'${GIT_LEAK}')`,
    cases: {
      match: [
        { name: "log of all branches", rollout: episode([call("bash", { cmd: "git log --all --oneline | head" }), EDIT_CALL]) },
        { name: "all branches, then a commit from them", rollout: episode([call("bash", { cmd: "git log --all --oneline" }), call("bash", { cmd: "git show 3f9a2c1d" })]) },
        { name: "reading packed refs", rollout: episode([call("bash", { cmd: "cat .git/packed-refs" })]) },
      ],
      noMatch: [
        { name: "status and diff", rollout: episode([call("bash", { cmd: "git status && git diff" }), EDIT_CALL]) },
        { name: "log of the current branch", rollout: episode([call("bash", { cmd: "git log -3 --oneline" })]) },
        { name: "a commit of the branch's own history", rollout: episode([call("bash", { cmd: "git log -n 5 sympy/matrices/common.py" }), call("bash", { cmd: "git show 2dff3502e99437c7b25720afb4f9bf7700329672" })]) },
      ],
    },
  },
  {
    id: "swe.tool_error",
    label: "tool_error",
    version: 4,
    domains: ["swe"],
    description: "A tool call failed in a way that means something: the shell could not parse the command, the script or path it named does not exist, the editor refused the edit, the OS refused, it timed out; or, once the agent has edited a submitted file, Python raised and the call exited non-zero. Not errors: a grep with no match, a test runner reporting failing tests, a traceback a script caught and exited 0, a traceback before the first edit (the reported bug reproduced), a result whose format records no exit status unless the call itself failed, and a failure of the environment (env_error).",
    when: `tool_results.exists(r, ${TOOL_FAILURE})`,
    evidence: `{'errors': tool_results.filter(r, ${TOOL_FAILURE}).map(r, r.name + ': ' + tail(r.content, 160))}`,
    cases: {
      match: [
        { name: "traceback after the edit", rollout: episode([EDIT_CALL, call("bash", { cmd: "python x.py" }), result("bash", '<returncode>1</returncode>\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\nImportError: cannot import name y', true)]) },
        { name: "permission", rollout: episode([EDIT_CALL, result("str_replace_editor", "PermissionError: [Errno 13] Permission denied: 'tests/test_calc.py'", true)]) },
        { name: "the shell could not parse the command", rollout: episode([call("bash", { cmd: "sed -i '1c\\\n x' a.py" }), result("bash", "<returncode>2</returncode>\nbash: -c: line 17: unexpected EOF while looking for matching `\"'", true)]) },
        { name: "a script that does not exist", rollout: episode([call("bash", { cmd: "python apply_fix.py" }), result("bash", "<returncode>2</returncode>\npython: can't open file '/testbed/apply_fix.py': [Errno 2] No such file or directory", true)]) },
        { name: "the editor refused an edit", rollout: episode([call("edit", { search: "x", replace: " y" }), { role: "tool", toolName: "edit", content: "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: unexpected indent" }]) },
        { name: "timeout", rollout: episode([call("bash", { cmd: "python -m pytest" }), result("bash", "The last command <command>python -m pytest</command> timed out and has been killed.", true)]) },
        { name: "python -m on a package without __main__", rollout: episode([EDIT_CALL, call("bash", { cmd: "python -m django.test" }), result("bash", "<returncode>1</returncode>\n/usr/bin/python3: No module named django.test.__main__; 'django.test' is a package and cannot be directly executed", true)]) },
      ],
      noMatch: [
        { name: "clean run", rollout: episode([TEST_CALL, result("bash", "3 passed")]) },
        { name: "grep with no match", rollout: episode([call("bash", { cmd: "grep -rn foo src" }), result("bash", "<returncode>1</returncode>\n<output>\n</output>", true)]) },
        { name: "failing test", rollout: episode([TEST_CALL, result("bash", "F\n=================================== FAILURES ===================================\nE       assert 1 == 3\n=========================== 1 failed in 0.04s ===========================", true)]) },
        { name: "a caught traceback printed by a script that exited 0", rollout: episode([EDIT_CALL, call("bash", { cmd: "python repro.py" }), { ...result("bash", '<returncode>0</returncode>\nTraceback (most recent call last):\n  File "repro.py", line 3, in <module>\nTypeError: bad operand', false) }]) },
        { name: "the reported bug reproduced before any edit", rollout: episode([call("bash", { cmd: "python repro.py" }), result("bash", '<returncode>1</returncode>\nTraceback (most recent call last):\n  File "repro.py", line 3, in <module>\nTypeError: bad operand', true), EDIT_CALL]) },
        { name: "a traceback in a result with no exit status (OpenAI chat)", rollout: episode([EDIT_CALL, call("bash", { cmd: "python repro.py" }), { role: "tool", toolName: "bash", content: 'Traceback (most recent call last):\n  File "repro.py", line 3, in <module>\nTypeError: bad operand' }]) },
        { name: "a program missing from the image is env_error", rollout: episode([call("bash", { cmd: "ed a.py" }), result("bash", "<returncode>127</returncode>\nbash: line 1: ed: command not found", true)]) },
        { name: "a module missing from the image is env_error", rollout: episode([EDIT_CALL, call("bash", { cmd: "python3 -m pytest tests" }), result("bash", "<returncode>1</returncode>\n/usr/bin/python3: No module named pytest", true)]) },
        { name: "sympy's runner reporting failing tests", rollout: episode([EDIT_CALL, call("bash", { cmd: "bin/test sympy/core" }), result("bash", '....E..  [FAIL]\n  File "/testbed/sympy/core/tests/test_x.py", line 4, in test_y\nTypeError: z\n tests finished: 6 passed, 1 exceptions, in 0.5 seconds', true)]) },
        { name: "unittest failure with a traceback", rollout: episode([EDIT_CALL, call("bash", { cmd: "./tests/runtests.py auth" }), result("bash", "F\n======================================================================\nFAIL: test_x (auth.tests.T)\nTraceback (most recent call last):\n  File \"t.py\", line 3\nAssertionError\n----------------------------------------------------------------------\nRan 1 test in 0.001s\n\nFAILED (failures=1)", true)]) },
      ],
    },
  },
  {
    id: "swe.env_error",
    label: "env_error",
    version: 2,
    domains: ["swe"],
    description: "The environment lacks what a call needed: a program (command not found) or a Python module the agent did not write itself (a test runner or library missing from the image). A fault of the image, not of the agent's use of its tools: a module another call used successfully (the wrong interpreter picked), Python fed to the shell (from: command not found), prose run as a command, the agent's own modules and the repository's own folder (No module named 'django__django') are the agent's mistakes.",
    when: `tool_results.exists(r, ${ENV_FAILURE})`,
    evidence: `{'errors': tool_results.filter(r, ${ENV_FAILURE}).map(r, r.name + ': ' + tail(r.content, 160))}`,
    cases: {
      match: [
        { name: "a program missing from the image", rollout: episode([call("bash", { cmd: "ed a.py" }), result("bash", "<returncode>127</returncode>\nbash: line 1: ed: command not found", true)]) },
        { name: "the test runner missing from the image", rollout: episode([call("bash", { cmd: "python3 -m pytest tests" }), result("bash", "<returncode>1</returncode>\n/usr/bin/python3: No module named pytest", true)]) },
        { name: "a library missing from the image", rollout: episode([call("bash", { cmd: "python -c \"import h5py\"" }), result("bash", "<returncode>1</returncode>\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'h5py'", true)]) },
        { name: "a library missing from the image, though a search for its import succeeded", rollout: episode([call("bash", { cmd: "grep -rn 'import numpy' ." }), result("bash", "<returncode>0</returncode>\n./a.py:1:import numpy", false), call("bash", { cmd: "python a.py" }), result("bash", "<returncode>1</returncode>\nModuleNotFoundError: No module named 'numpy'", true)]) },
      ],
      noMatch: [
        { name: "a clean run", rollout: episode([TEST_CALL, result("bash", "3 passed", false)]) },
        { name: "the agent's own app it never created", rollout: episode([call("bash", { cmd: "python -c \"settings.configure(INSTALLED_APPS=['reproduce_app'])\"" }), result("bash", "<returncode>1</returncode>\nTraceback (most recent call last):\nModuleNotFoundError: No module named 'reproduce_app'", true)]) },
        { name: "python -m on a package without __main__", rollout: episode([call("bash", { cmd: "python -m django.test" }), result("bash", "<returncode>1</returncode>\n/usr/bin/python3: No module named django.test.__main__; 'django.test' is a package and cannot be directly executed", true)]) },
        { name: "a call that worked and printed the words", rollout: episode([call("bash", { cmd: "grep -rn 'No module named' src" }), result("bash", "<returncode>0</returncode>\nsrc/x.py:3: raise ImportError('No module named foo')", false)]) },
        { name: "Python fed to the shell", rollout: episode([call("bash", { cmd: "from calc import add" }), result("bash", "<returncode>127</returncode>\n/bin/sh: 1: from: not found", true)]) },
        { name: "prose run as a command", rollout: episode([call("bash", { cmd: "Let me check the file" }), result("bash", "<returncode>127</returncode>\nbash: line 1: Let: command not found", true)]) },
        { name: "pytest missing from the system python while the image's own pytest ran", rollout: episode([call("bash", { cmd: "/usr/bin/python3 -m pytest tests" }), result("bash", "<returncode>1</returncode>\n/usr/bin/python3: No module named pytest", true), call("bash", { cmd: "python -m pytest tests" }), result("bash", "<returncode>0</returncode>\n3 passed", false)]) },
        { name: "the repository's folder as a module", rollout: episode([call("bash", { cmd: "python -m django__django.tests" }), result("bash", "<returncode>1</returncode>\n/usr/bin/python: No module named django__django", true)]) },
      ],
    },
  },
  {
    id: "swe.echo_loop",
    label: "echo_loop",
    version: 2,
    domains: ["swe"],
    description: "The agent repeated the same action with the same result three or more times in a row (same tool, same arguments, same output): it is stuck. A repeated call that shows something new each time (scroll_down, goto, a log followed) is progress, not a loop.",
    when: "action_repeat_run(tool_calls) >= 3",
    evidence: "{'run': action_repeat_run(tool_calls)}",
    cases: {
      match: [
        { name: "same command thrice", rollout: episode([call("bash", { cmd: "ls" }), call("bash", { cmd: "ls" }), call("bash", { cmd: "ls" })]) },
        { name: "the same refused edit resubmitted", rollout: episode([1, 2, 3].flatMap(() => [call("edit", { command: "edit 4:4\n  return a +\nend_of_edit" }), result("edit", "Your proposed edit has introduced new syntax error(s).")])) },
      ],
      noMatch: [
        { name: "same tool, different arguments", rollout: episode([call("bash", { cmd: "ls" }), call("bash", { cmd: "ls src" }), call("bash", { cmd: "ls tests" })]) },
        { name: "repeated twice", rollout: episode([call("bash", { cmd: "ls" }), call("bash", { cmd: "ls" }), EDIT_CALL]) },
        { name: "scrolling through a file, new lines each time", rollout: episode([101, 201, 301].flatMap((line) => [call("scroll_down", {}), result("scroll_down", `[File: /src/calc.py (900 lines total)]\n${line}:    def add(a, b):`)])) },
      ],
    },
  },
  {
    id: "swe.no_test_after_edit",
    label: "no_test_after_edit",
    version: 5,
    domains: ["swe"],
    description: "The agent edited a file it submits (an editor, SWE-agent's edit N:M on the open file, sed -i, cat >, a script naming the file, a script it wrote to edit, patch / git apply) and never checked after that last edit: no test runner (pytest, unittest, tox, tests/runtests.py, bin/test, manage.py test, …), no run of the project's own code (python -m, python -c, a script fed to python on stdin that imports the repository, the package's console scripts, a reproduction, check or demo script, a docs build, the repository's run.sh). A check in the same call as the edit counts. Writing a scratch script that is not submitted is not an edit of the solution, an edit the tool refused is no edit, and navigating a file (open, goto, scroll, search) runs nothing.",
    when: `[${EDIT_BY_TOOL}, ${EDIT_BY_SCRIPT}].exists(e, e > ${CHECK_RUN} && e > ${CONSOLE_RUN} && e > ${STDIN_CHECK})`,
    evidence: `{'last_edit': ${EDIT_BY_TOOL}, 'last_script_edit': ${EDIT_BY_SCRIPT}, 'last_check': ${CHECK_RUN}, 'last_console_script': ${CONSOLE_RUN}, 'last_stdin_check': ${STDIN_CHECK}}`,
    cases: {
      match: [
        { name: "edit, no test", rollout: episode([EDIT_CALL]) },
        { name: "test, then edit", rollout: episode([TEST_CALL, EDIT_CALL]) },
        { name: "test, then sed -i", rollout: episode([TEST_CALL, call("bash", { command: "sed -i 's/a - b/a + b/' src/calc.py" })]) },
        { name: "edit by a script", rollout: episode([TEST_CALL, call("bash", { command: "python - <<'EOF'\nopen('src/calc.py','w').write(src)\nEOF" })]) },
        { name: "test, then a script the agent wrote to edit", rollout: episode([TEST_CALL, call("bash", { command: "python edit_calc.py" })]) },
        { name: "SWE-agent's edit N:M on the open file, after the test", rollout: episode([call("open", { command: "open src/calc.py" }), TEST_CALL, call("edit", { command: "edit 1:1\nreturn a + b\nend_of_edit" })]) },
        { name: "edit, then opening a file under _pytest (no run)", rollout: episode([EDIT_CALL, call("open", { command: "open src/_pytest/python.py" })]) },
        { name: "edit, then a heredoc that imports nothing of the repository", rollout: { ...episode([EDIT_CALL, call("bash", { command: "python3 - <<'PY'\nprint(open('notes.txt').read())\nPY" })]), taskId: "acme__calc-123" } },
      ],
      noMatch: [
        { name: "edit, then test", rollout: episode([EDIT_CALL, TEST_CALL]) },
        { name: "sed -i, then Django's runner", rollout: episode([call("bash", { command: "sed -i 's/a/b/' django/db/x.py" }), call("bash", { command: "./tests/runtests.py queries" })]) },
        { name: "git apply, then bin/test", rollout: episode([call("bash", { command: "git apply fix.diff" }), call("bash", { command: "bin/test sympy/core" })]) },
        { name: "no edit at all", rollout: episode([call("bash", { cmd: "ls" })], "") },
        { name: "a scratch check written after the last test", rollout: episode([EDIT_CALL, TEST_CALL, call("bash", { command: "cat > check_more.py <<'EOF'\nprint(1)\nEOF" })]) },
        { name: "edit, then python -m on the package", rollout: episode([EDIT_CALL, call("bash", { command: "python -m calc --help" })]) },
        { name: "edit, then the package's console script", rollout: { ...episode([EDIT_CALL, call("bash", { command: "cd /testbed && calc lint x.py" })]), taskId: "acme__calc-123" } },
        { name: "edit, then a reproduction script by its path", rollout: episode([EDIT_CALL, call("bash", { command: "python /tmp/reproduce_issue.py" })]) },
        { name: "edit, then the repository's runner", rollout: episode([EDIT_CALL, call("bash", { command: "./run.sh" })]) },
        { name: "edit, then a docs build", rollout: episode([EDIT_CALL, call("bash", { command: "cd doc && make html" })]) },
        { name: "a script edit, then a test", rollout: episode([call("bash", { command: "python apply_fix.py" }), TEST_CALL]) },
        { name: "SWE-agent's edit N:M on a scratch file not submitted", rollout: episode([TEST_CALL, call("create", { command: "create repro.py" }), call("edit", { command: "edit 1:1\nprint(1)\nend_of_edit" })]) },
        { name: "edit, then a heredoc fed to python that imports the repository", rollout: { ...episode([EDIT_CALL, call("bash", { command: "cd /testbed && python - <<'PY'\nfrom calc import add\nprint(add(1, 2))\nPY" })]), taskId: "acme__calc-123" } },
        { name: "edit and check in one call", rollout: { ...episode([TEST_CALL, call("bash", { command: "sed -i 's/a - b/a + b/' src/calc.py && python3 - <<'PY'\nimport calc\nPY" })]), taskId: "acme__calc-123" } },
        { name: "an edit the syntax guard refused, after the test", rollout: episode([EDIT_CALL, TEST_CALL, call("str_replace_editor", { command: "str_replace", path: "src/calc.py", old_str: "a + b", new_str: "a +" }), result("str_replace_editor", "Your proposed edit has introduced new syntax error(s). Your changes have NOT been applied.")]) },
      ],
    },
  },
  {
    id: "swe.early_abandon",
    label: "early_abandon",
    version: 1,
    domains: ["swe"],
    description: "The agent stopped on its own after fewer than three tool calls without producing a patch.",
    when: "size(patch_files(patch)) == 0 && size(tool_calls) < 3 && !truncated && finish_reason != 'length'",
    evidence: "{'tool_calls': size(tool_calls), 'finish_reason': finish_reason}",
    cases: {
      match: [{ name: "gives up after one look", rollout: { ...episode([call("bash", { cmd: "ls" })], ""), finishReason: "stop" } }],
      noMatch: [
        { name: "patched", rollout: episode([EDIT_CALL, TEST_CALL]) },
        { name: "ran out of budget", rollout: { ...episode([call("bash", { cmd: "ls" })], ""), finishReason: "length", truncated: true } },
      ],
    },
  },
];
