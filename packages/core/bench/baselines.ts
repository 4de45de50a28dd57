// The catalog's decisions written by hand in plain JS (no CEL, no guards, no input caps): what the
// harness costs. Each line is one detector's `when`, with the same patterns as JavaScript regexes;
// the bench checks that both flag the same number of rollouts before it times them.
import type { Rollout } from "@evotrainer/contract";
import { canonicalJson } from "../src/canonical-json.ts";
import { hasNonSpace } from "../src/cel/literal-prefilter.ts";
import type { Domain } from "../src/harness/detector.ts";
import { codeBlock } from "../src/text/code-block.ts";
import { answersEqual, finalAnswer } from "../src/text/final-answer.ts";
import { patchChangedFiles, patchFiles } from "../src/text/patch-files.ts";
import { ngramRepeatRatio, repeatRunAtLeast } from "../src/text/repetition.ts";
import { scriptMix } from "../src/text/script-mix.ts";
import { lastCall, toolRepeatRun } from "../src/text/tool-calls.ts";

const PY_ERROR = /(Traceback \(most recent call last\)|^\w*(Error|Exception): )/m;
const COMPILE = /compil|syntax|indentationerror|taberror|expected an indented block|unexpected indent|unindent does not match/i;
const CANNED_ROW = /print\s*\(\s*['"](-?\d+ ){4,}-?\d+['"]\s*\)/;
const TEST_FILE = /(^|\/)(test_[^/]*|unittest_[^/]*|[^/]*_tests?|tests|conftest)\.py$|_test\.go$|\.(test|spec)\.[jt]sx?$|_spec\.rb$|(^|\/)(tests?|testing)\/([^/]*\/)*test[^/]*$/;
const TEST_EDIT_CALL = /"command":"(str_replace|delete)"[^\n]*"path":"[^"]*\/((test_[^/"]*|[^/"]*_tests?|tests|conftest)\.py|(tests?|testing)\/([^/"]*\/)*test[^/"]*)"/;
const EDIT = ['"command":"str_replace"', '"command":"create"', '"command":"insert"', '"command":"edit ', "edit {", "insert {", "apply_patch", "write_file", "sed -i", "cat >", "cat <<", "tee ", "git apply", "patch -p", ".write(", "write_text(", "perl -pi"];
const TEST_RUN = ["pytest", "python -m unittest", "tox", "npm test", "npm run test", "yarn test", "go test", "cargo test", "run_tests", "runtests", "bin/test", "manage.py test", "nosetests", "make test", "make check", "mvn test", "gradle test", "python test_", "python3 test_", "python tests/", "python3 tests/", "python repro", "python3 repro", "bash repro", "python verify", "python3 verify", "python check", "python3 check", "python final_test", "python3 final_test", "python run_", "python3 run_", "sphinx-build"];
const TOOL_ERROR = /(: command not found|: not found$|No module named |can.t open file|syntax error near unexpected token|unexpected EOF while looking for matching|syntax error: unexpected end of file|ERROR: file (or directory )?not found|Your proposed edit has introduced new syntax error|Traceback \(most recent call last\)|^\s*File "[^"]*", line \d+|^\w*(Syntax|Indentation|Import|ModuleNotFound|Name|Attribute|Type|Permission)Error\b|Permission denied|timed out|TimeoutError)/m;
const TEST_REPORT = /(^=+ .*(passed|failed|error).* =+$|^FAILED \(|^Ran \d+ tests? in|^OK( \(|$)|^(FAIL|ERROR): test|^E\s{3}|^\s*tests finished: \d+ passed|\[FAIL\]$)/m;
const GIT_LEAK = /git\s+(log\s[^"]*--all|log\s+--all|reflog|rev-list\s+--all|fetch|cat-file|log\s[^"]*--(branches|remotes|tags))|\.git\/(packed-refs|ORIG_HEAD|FETCH_HEAD|logs\/)/;

const count = (...hits: boolean[]) => hits.filter(Boolean).length;

function math(r: Rollout): number {
  const response = r.response ?? "";
  const gt = typeof r.groundTruth === "string" ? r.groundTruth : "";
  const answer = finalAnswer(response);
  const ratio = ngramRepeatRatio(response, 4);
  const results = (r.trajectory ?? []).filter((t) => t.role === "tool");
  return count(
    r.truncated || r.finishReason === "length",
    hasNonSpace(response) && answer === "",
    repeatRunAtLeast(response, 64) || ratio >= 0.6 || (ratio >= 0.5 && answer === ""),
    gt !== "" && !answersEqual(answer, finalAnswer(gt) || gt),
    !hasNonSpace(response) && !(r.trajectory ?? []).some((t) => t.toolCalls?.length),
    scriptMix(response) >= 0.05,
    results.some((t) => t.isError === true || PY_ERROR.test(t.content)),
  );
}

function code(r: Rollout): number {
  const status = r.testResults?.status ?? "";
  const statusAndMessage = `${status} ${r.testResults?.message ?? ""}`;
  const block = codeBlock(r.response ?? "");
  const hasCode = hasNonSpace(block);
  const compile = COMPILE.test(statusAndMessage);
  return count(
    hasCode && compile,
    hasCode && /runtime error|error during testing|testrunnererror|^re$/i.test(status) && !compile,
    /time limit|timeout|timed out|^tle$/i.test(status) || r.finishReason === "timeout",
    r.testResults !== undefined && r.testResults.passed < r.testResults.total && (status === "" || /wrong answer|^wa$/i.test(status)),
    (!/input\s*\(|stdin|argv|open\s*\(|def\s+\w+\s*\(\s*self\s*,/.test(block) && /print\s*\(/.test(block)) || /==\s*['"][^'"\n]*\\n[^'"\n]*['"]/.test(block) || CANNED_ROW.test(block),
  );
}

function swe(r: Rollout): number {
  const turns = r.trajectory ?? [];
  const calls = turns.flatMap((t) => t.toolCalls ?? []).map((c) => ({ name: c.name, args: canonicalJson(c.arguments) }));
  const patch = typeof r.extra?.["patch"] === "string" ? r.extra["patch"] : "";
  const files = patchFiles(patch);
  const lastEdit = lastCall(calls, EDIT, files);
  return count(
    files.length === 0,
    patchChangedFiles(patch).some((f) => TEST_FILE.test(f)) || calls.some((c) => TEST_EDIT_CALL.test(c.args)),
    GIT_LEAK.test(calls.map((c) => `${c.name} ${c.args}`).join("\n")),
    turns.some((t) => t.role === "tool" && t.isError !== false && TOOL_ERROR.test(t.content) && !TEST_REPORT.test(t.content)),
    toolRepeatRun(calls) >= 3,
    lastEdit >= 0 && lastCall(calls, TEST_RUN) < lastEdit,
    files.length === 0 && calls.length < 3 && !r.truncated && r.finishReason !== "length",
  );
}

/** How many of the domain's detectors flag the rollout. */
export const BASELINES: Record<Exclude<Domain, "custom">, (r: Rollout) => number> = { math, code, swe };
