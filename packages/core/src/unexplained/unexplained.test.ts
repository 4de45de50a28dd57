import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { rolloutSchema, type Rollout } from "@evotrainer/contract";
import { loadGsm8k, loadLiveCodeBench, REAL_DIR } from "../__fixtures__/real-data.ts";
import { SWE_DETECTORS } from "../catalog/index.ts";
import { compileDetector, verifyDetectorCases } from "../harness/detector.ts";
import { compileHarness } from "../harness/harness.ts";
import { answerFormat } from "./answer-format.ts";
import { backtestDetector } from "./backtest-detector.ts";
import { draftDetector } from "./draft-detector.ts";
import { errorSignature } from "./error-signature.ts";
import { normaliseErrorText } from "./normalise-error.ts";
import { registerDraftedDetector } from "./register-drafted-detector.ts";
import { programOf } from "./shell-command.ts";
import { nonSeparatingLabels, unexplainedFailures } from "./unexplained-failures.ts";

/** Every line of every command output in the 150 real mini-swe-agent trajectories (observations are user messages there). */
const sweOutputLines: string[] = gunzipSync(readFileSync(`${REAL_DIR}/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz`))
  .toString("utf8")
  .trim()
  .split("\n")
  .flatMap((line) => (JSON.parse(line) as { traj: { messages: { role: string; content: unknown }[] } }).traj.messages)
  .filter((m) => m.role === "user" && typeof m.content === "string" && m.content.startsWith("<returncode>"))
  .flatMap((m) => (m.content as string).split("\n"));

/** The real line holding `part`: the test fails if the fixture does not hold it, so no line here is made up. */
function realLine(part: string): string {
  const line = sweOutputLines.find((l) => l.includes(part));
  expect(line, `a real SWE output line containing ${part}`).toBeDefined();
  return line!;
}

const lcb = loadLiveCodeBench();

describe("signature normalisation on real error lines", () => {
  it("gives one text for the same Django failure on two tables a reproduction script named differently", () => {
    const a = normaliseErrorText(realLine("django.db.utils.OperationalError: no such table: __main___dimension"));
    const b = normaliseErrorText(realLine("django.db.utils.OperationalError: no such table: reproduce_app_report"));
    expect(a).toBe("django.db.utils.OperationalError: no such table: <id>");
    expect(b).toBe(a);
  });

  it("takes out the quoted names of a missing module and of a missing attribute", () => {
    const modules = sweOutputLines.filter((l) => /^ModuleNotFoundError: No module named '/.test(l));
    expect(new Set(modules).size).toBeGreaterThan(1);
    expect(new Set(modules.map(normaliseErrorText))).toEqual(new Set(["ModuleNotFoundError: No module named <q>"]));
    const attributes = sweOutputLines.filter((l) => /^AttributeError: '.*' object has no attribute '/.test(l));
    expect(new Set(attributes).size).toBeGreaterThan(1);
    expect(new Set(attributes.map(normaliseErrorText))).toEqual(new Set(["AttributeError: <q> object has no attribute <q>"]));
  });

  it("keeps an apostrophe inside a word and takes out paths, line numbers and URLs", () => {
    expect(normaliseErrorText(realLine("Name node can't be used with"))).toBe("ValueError: Name node can't be used with <q> constant");
    const fileLine = realLine('File "/testbed/django/db/backends/sqlite3/base.py", line 391');
    expect(normaliseErrorText(fileLine)).toBe("File <q>, line <n>, in execute");
    const linkcheck = realLine("Max retries exceeded with url");
    expect(normaliseErrorText(linkcheck)).not.toMatch(/https?:|\d/);
  });

  it("gives the grader's wrong-answer statuses one text whatever values they compared (LiveCodeBench)", () => {
    const statuses = lcb.map((r) => r.errorMessage).filter((m): m is string => m?.startsWith("Wrong answer at output_line_idx") ?? false);
    expect(statuses.length).toBeGreaterThan(100);
    expect(new Set(statuses.map(normaliseErrorText))).toEqual(new Set(["Wrong answer at output_line_idx=<n>: <value> != <value>"]));
  });

  it("reads the grader's exception repr as type and message (LiveCodeBench)", () => {
    const row = lcb.find((r) => r.rollout.testResults?.message === `TypeError("'int' object is not subscriptable")`);
    expect(row).toBeDefined();
    const s = errorSignature(row!.rollout, "code");
    expect(s.exception).toBe("TypeError: <q> object is not subscriptable");
    expect(s.testStatus).toBe("Runtime Error");
    expect(s.key).toBe("TypeError: <q> object is not subscriptable · tests: Runtime Error");
    const timeout = lcb.find((r) => r.rollout.testResults?.message === "TimeoutException()");
    expect(errorSignature(timeout!.rollout, "code").key).toBe("TimeoutException · tests: Time Limit Exceeded");
  });

  it("names the program of real commands past cd, here-documents and pipes", () => {
    expect(programOf("cd /testbed && python3 reproduce_issue.py")).toBe("python");
    expect(programOf("python3 reproduce_issue.py && bin/test sympy/sets/tests/test_contains.py")).toBe("bin/test");
    expect(programOf("cat <<'EOF' > repro.py\nimport x\nx.run()\nEOF\npython repro.py 2>&1 | tail -20")).toBe("python");
    expect(programOf("python -m pytest tests/test_x.py -q")).toBe("python -m pytest");
    expect(programOf("grep -rn 'def foo' . | head")).toBe("grep");
    // A `;` or `|` inside quotes joins nothing.
    expect(programOf(`cd /testbed && python -c "import sympy; print(sympy.__version__)"`)).toBe("python -c");
    expect(programOf(`grep -E "def (foo|bar)" a.py`)).toBe("grep");
  });

  it("classes the forms of real GSM8K answers", () => {
    const forms = new Map<string, number>();
    for (const { rollout } of loadGsm8k()) {
      const f = answerFormat(rollout.response!);
      const k = f.where ? `${f.where} ${f.kind}` : f.kind;
      forms.set(k, (forms.get(k) ?? 0) + 1);
    }
    // The reference style ("A: <n>" lines) dominates; some solutions never reach an answer.
    expect(forms.get("marked line integer")).toBeGreaterThan(3000);
    expect(forms.get("no answer")).toBeGreaterThan(0);
    expect(answerFormat("so the answer is \\boxed{\\frac{3}{4}}").kind).toBe("fraction");
    expect(answerFormat("\\boxed{10\\%}").kind).toBe("percent");
    expect(answerFormat("Answer: blue").kind).toBe("non-numeric");
  });
});

/** A failed SWE-style episode whose one command printed `output` and exited 1. */
function episode(uid: string, command: string, output: string, reward = 0): Rollout {
  return rolloutSchema.parse({
    uid,
    split: "train",
    step: 0,
    taskId: uid,
    groupId: uid,
    sample: 0,
    prompt: "fix it",
    reward,
    responseTokens: 10,
    finishReason: "Submitted",
    trajectory: [
      { role: "assistant", content: "run it", toolCalls: [{ name: "bash", arguments: { command } }] },
      { role: "tool", content: `<returncode>1</returncode>\n<output>\n${output}\n</output>`, isError: true },
    ],
  });
}

describe("clustering unexplained failures", () => {
  const tables = [realLine("django.db.utils.OperationalError: no such table: __main___dimension"), realLine("django.db.utils.OperationalError: no such table: reproduce_app_report")];
  const module = sweOutputLines.find((l) => /^ModuleNotFoundError: No module named '/.test(l))!;
  const rollouts = [
    episode("a", "cd /testbed && python repro.py", `Traceback (most recent call last):\n${tables[0]}`),
    episode("b", "python3 other.py", `Traceback (most recent call last):\n${tables[1]}`),
    episode("c", "python x.py", module),
    episode("d", "python y.py", module),
    episode("e", "python z.py", module),
    episode("f", "python ok.py", module, 1), // a success: never a failure to explain
    episode("g", "python w.py", `Traceback (most recent call last):\n${tables[0]}`),
  ];

  it("groups by exact signature, largest first, with counts, share of failures and examples; labelled failures are explained", () => {
    const labels = [{ rolloutUid: "g", label: "tool_error", validity: false }];
    const out = unexplainedFailures(rollouts, labels, { domain: "swe", successThreshold: 0.5, maxExamples: 2 });
    expect(out).toMatchObject({ rollouts: 7, failures: 6, unexplained: 5 });
    expect(out.clusters.map((c) => [c.key, c.count, c.exampleUids])).toEqual([
      ["$ python · ModuleNotFoundError: No module named <q>", 3, ["c", "d"]],
      ["$ python · OperationalError: no such table: <id>", 2, ["a", "b"]],
    ]);
    expect(out.clusters[0]!.shareOfFailures).toBeCloseTo(3 / 6, 12);
    expect(out.clusters[0]!.uids).toEqual(["c", "d", "e"]);
  });

  it("counts a success voided by a validity label as a failure, and an outcome label as no explanation", () => {
    const labels = [
      { rolloutUid: "f", label: "test_tampering", validity: true },
      { rolloutUid: "c", label: "wrong_answer", validity: false },
    ];
    const out = unexplainedFailures(rollouts, labels, { domain: "swe", successThreshold: 0.5 });
    expect(out.failures).toBe(7);
    // f is explained by its own validity label; c's outcome label explains nothing.
    expect(out.unexplained).toBe(6);
    expect(out.clusters[0]!.uids).toEqual(["c", "d", "e"]);
  });

  it("can set aside labels that fire as often on successes as on failures, which explain no failure", () => {
    // 20 failed and 20 successful episodes: `everywhere` flags half of each side, `on_failures` 15 failures and 1 success.
    const many = Array.from({ length: 40 }, (_, i) => episode(`m${i}`, "python t.py", "ImportError: cannot import name 'y'", i < 20 ? 0 : 1));
    const labels = many.flatMap((r, i) => [
      ...(i % 2 === 0 ? [{ rolloutUid: r.uid, label: "everywhere", validity: false }] : []),
      ...(i < 15 || i === 20 ? [{ rolloutUid: r.uid, label: "on_failures", validity: false }] : []),
    ]);
    const ignored = nonSeparatingLabels(many, labels, 0.5);
    expect(ignored).toEqual(["everywhere"]);
    expect(unexplainedFailures(many, labels, { domain: "swe", successThreshold: 0.5 }).unexplained).toBe(3);
    expect(unexplainedFailures(many, labels, { domain: "swe", successThreshold: 0.5, notExplaining: ignored }).unexplained).toBe(5);
  });

  it("is deterministic: the same rollouts in another order give the same clusters", () => {
    const a = unexplainedFailures(rollouts, [], { domain: "swe", successThreshold: 0.5 });
    const b = unexplainedFailures([...rollouts].reverse(), [], { domain: "swe", successThreshold: 0.5 });
    expect(b.clusters.map((c) => [c.key, c.count])).toEqual(a.clusters.map((c) => [c.key, c.count]));
  });
});

describe("a detector drafted from a cluster", () => {
  const harness = compileHarness({ version: 3, detectors: [...SWE_DETECTORS], healthRules: [] });
  if (!harness.ok) throw new Error("the swe catalog does not compile");
  const base = harness.harness.definition;
  const tables = [realLine("django.db.utils.OperationalError: no such table: __main___dimension"), realLine("django.db.utils.OperationalError: no such table: reproduce_app_report")];
  const rollouts = [
    episode("a", "python repro.py", tables[0]!),
    episode("b", "python other.py", tables[1]!),
    episode("c", "python x.py", "ImportError: cannot import name 'y'"),
    episode("s", "python ok.py", tables[0]!, 1),
  ];
  const cluster = unexplainedFailures(rollouts, [], { domain: "swe", successThreshold: 0.5 }).clusters[0]!;
  const draft = draftDetector(cluster.signature, "swe", base);

  it("compiles under the harness's rule guards, matches its own source line, and never claims validity", () => {
    expect(draft).toMatchObject({ id: "swe.operational_error", label: "operational_error", validity: false });
    const compiled = compileDetector(draft);
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(draft.cases?.match).toHaveLength(1);
    expect(verifyDetectorCases(compiled.detector)).toEqual([]);
  });

  it("is backtested on the branch: flag rate, how much of its cluster it catches, informativeness, and no precision without reviews", () => {
    const result = backtestDetector({ detector: draft, rollouts, labels: [], successThreshold: 0.5, clusterUids: cluster.uids });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.backtest).toMatchObject({ rollouts: 4, flagged: 3, failed: 3, flaggedFailed: 2, flaggedSucceeded: 1, cluster: { size: 2, flagged: 2 }, precision: null, errors: 0 });
    expect(result.backtest.flagRate).toBe(0.75);
    expect(result.backtest.informativeness.failedRate).toBeCloseTo(2 / 3, 12);
    const reviewed = backtestDetector({
      detector: draft,
      rollouts,
      labels: [],
      successThreshold: 0.5,
      reviews: [
        { rolloutUid: "a", label: "operational_error", present: true },
        { rolloutUid: "s", label: "operational_error", present: false },
        { rolloutUid: "c", label: "operational_error", present: true }, // not flagged: no say on precision
      ],
    });
    expect(reviewed.ok && reviewed.backtest.precision).toMatchObject({ reviewed: 2, confirmed: 1, precision: 0.5 });
  });

  it("refuses an edited rule that does not compile, naming the field", () => {
    const result = backtestDetector({ detector: { ...draft, when: "tool_results.exists(r, r.content.matches(r'('))" }, rollouts, labels: [], successThreshold: 0.5 });
    expect(result).toMatchObject({ ok: false, field: "when" });
  });

  it("registers as the next harness version without a validity role, and not twice", () => {
    const result = backtestDetector({ detector: draft, rollouts, labels: [], successThreshold: 0.5 });
    if (!result.ok) throw new Error(result.message);
    const registered = registerDraftedDetector(base, { ...draft, validity: true }, cluster.key, result.backtest);
    expect(registered.ok).toBe(true);
    if (!registered.ok) return;
    expect(registered.harness.version).toBe(4);
    expect(registered.harness.detectors.find((d) => d.id === draft.id)?.validity).toBe(false);
    expect(registered.registration).toMatchObject({ fromVersion: 3, toVersion: 4, label: "operational_error", clusterKey: cluster.key });
    expect(registerDraftedDetector(registered.harness, draft, cluster.key, result.backtest)).toMatchObject({ ok: false });
    // With the label taken, the next draft from the same cluster gets a fresh one.
    expect(draftDetector(cluster.signature, "swe", registered.harness).label).toBe("operational_error_2");
  });

  it("drafts a math rule from an answer's form, and a code rule from the grader's status", () => {
    const noAnswer = loadGsm8k().find(({ rollout }) => answerFormat(rollout.response!).kind === "no answer")!.rollout;
    const m = draftDetector(errorSignature(noAnswer, "math"), "math", { detectors: [] });
    expect(m.when).toBe("final_answer(response) == ''");
    const tle = lcb.find((r) => r.errorMessage === "Time Limit Exceeded" && r.rollout.testResults?.message === undefined);
    const status = tle ?? lcb.find((r) => r.errorMessage?.startsWith("Wrong answer at output_line_idx"))!;
    const c = draftDetector(errorSignature(status.rollout, "code"), "code", { detectors: [] });
    const compiled = compileDetector(c);
    expect(compiled.ok && verifyDetectorCases(compiled.detector)).toEqual([]);
  });
});
