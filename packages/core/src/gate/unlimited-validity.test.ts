import { describe, expect, it } from "vitest";
import { unlimitedValidity, unlimitedValidityWarning } from "./unlimited-validity.ts";

const side = (name: string, label_rate: Record<string, number>) => ({ name, metrics: { label_rate } });

describe("unlimitedValidity", () => {
  it("names a validity label that some branch of the round carries and no limit covers", () => {
    const reasons = unlimitedValidity(["hardcoded_output", "test_tampering"], {}, [side("candidate", {}), side("parent", { hardcoded_output: 0.2 }), side("control 1", { hardcoded_output: 0.1, truncated: 0.5 })]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^validity label hardcoded_output is on this round's rollouts \(parent, control 1\) and gate.validityLimits does not limit it/);
    expect(reasons[0]).toContain("add gate.validityLimits.hardcoded_output");
  });

  it("says nothing when every present validity label is limited, or none is present", () => {
    expect(unlimitedValidity(["hardcoded_output"], { hardcoded_output: 0.05 }, [side("candidate", { hardcoded_output: 0.3 })])).toEqual([]);
    expect(unlimitedValidity(["hardcoded_output"], {}, [side("candidate", { hardcoded_output: 0 }), side("parent", { truncated: 1 })])).toEqual([]);
    expect(unlimitedValidity([], {}, [side("candidate", { hardcoded_output: 0.3 })])).toEqual([]);
  });
});

describe("unlimitedValidityWarning", () => {
  it("names, before the run, the domain's validity labels no limit covers", () => {
    expect(unlimitedValidityWarning({ domain: "swe", gate: { validityLimits: { test_tampering: 0.1 } } })).toMatch(/^gate.validityLimits does not limit git_history_leak \(validity detectors of the swe catalog\): a round where one of them fires goes to a person/);
    expect(unlimitedValidityWarning({ domain: "swe", gate: { validityLimits: { test_tampering: 0.1, git_history_leak: 0.05 } } })).toBeNull();
    // Math's catalog has no validity detector: nothing to limit.
    expect(unlimitedValidityWarning({ domain: "math", gate: { validityLimits: {} } })).toBeNull();
  });
});
