import { describe, expect, it } from "vitest";
import { classifyExit, exitCodeFor, exitCodes, type FailureClass } from "./exit-codes.ts";

describe("classifyExit", () => {
  it.each([
    [0, null, null, false],
    [2, null, "config_error", false],
    [3, null, "data_error", false],
    [75, null, "preempted", true],
    // The shell could not run the command (a wrong trainer.python): a rerun fails the same way.
    [126, null, "config_error", false],
    [127, null, "config_error", false],
    [1, null, "crash", true],
    [4, null, "crash", true],
    [255, null, "crash", true],
    [137, "SIGKILL", "crash", true],
    [143, "SIGTERM", "crash", true],
    [null, null, "crash", true],
  ] as const)("exit code %s → signal %s, class %s, retriable %s", (code, signal, failureClass, retriable) => {
    const result = classifyExit(code);
    expect(result).toEqual({ failureClass, retriable, signal, oomSuspect: signal === "SIGKILL" });
  });

  it("uses the signal Node reports when the process was killed", () => {
    expect(classifyExit(null, "SIGKILL")).toEqual({
      failureClass: "crash",
      retriable: true,
      signal: "SIGKILL",
      oomSuspect: true,
    });
    expect(classifyExit(null, "SIGSEGV")).toMatchObject({ failureClass: "crash", retriable: true, oomSuspect: false });
  });

  it("gives a contract code back for every failure class, and classifies it as that class", () => {
    const classes: FailureClass[] = ["config_error", "data_error", "preempted"];
    for (const failureClass of classes) expect(classifyExit(exitCodeFor(failureClass)).failureClass).toBe(failureClass);
    expect(exitCodeFor("crash")).toBe(1);
    expect(exitCodeFor("oom")).toBe(1);
    expect(exitCodes).toEqual({ ok: 0, configError: 2, dataError: 3, preempted: 75, notExecutable: 126, notFound: 127 });
  });
});
