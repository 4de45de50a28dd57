import { describe, expect, it } from "vitest";
import { compileDetector, verifyDetectorCases } from "../harness/detector.ts";
import { DETECTOR_CATALOG } from "./index.ts";

const EXPECTED = {
  math: ["truncated", "format_error", "repetition_loop", "wrong_answer", "empty_response", "language_mix", "tool_error"],
  code: ["compile_error", "runtime_error", "timeout", "wrong_answer", "hardcoded_output"],
  swe: ["empty_patch", "test_tampering", "git_history_leak", "tool_error", "env_error", "echo_loop", "no_test_after_edit", "early_abandon"],
};

describe("detector catalog", () => {
  it("holds exactly the labels the method names, per domain, with validity where it matters", () => {
    for (const [domain, labels] of Object.entries(EXPECTED)) {
      expect(DETECTOR_CATALOG.filter((d) => d.domains.includes(domain as never)).map((d) => d.label)).toEqual(labels);
    }
    expect(DETECTOR_CATALOG.filter((d) => d.validity).map((d) => d.label).sort()).toEqual(["git_history_leak", "hardcoded_output", "test_tampering"]);
  });

  for (const def of DETECTOR_CATALOG) {
    it(`${def.id} compiles and passes its own cases`, () => {
      const compiled = compileDetector(def);
      if (!compiled.ok) throw new Error(`${compiled.field}: ${compiled.message}`);
      const cases = compiled.detector.definition.cases;
      expect(cases.match.length).toBeGreaterThan(0);
      expect(cases.noMatch.length).toBeGreaterThan(0);
      expect(verifyDetectorCases(compiled.detector)).toEqual([]);
    });
  }
});
