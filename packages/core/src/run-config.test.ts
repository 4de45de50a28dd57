import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runConfigSchema, uncontrolledRunWarning } from "./run-config.ts";

const example = parse(readFileSync(new URL("../../../examples/gym-code.yaml", import.meta.url), "utf8")) as { search: object; autonomy: object };
const withSearch = (search: object, autonomy: object = example.autonomy) => ({ ...example, search: { ...example.search, ...search }, autonomy });

describe("a run without a control arm", () => {
  it("is refused under full autonomy, naming the field, the measured cost and the ways out", () => {
    const parsed = runConfigSchema.safeParse(withSearch({ control: "none" }));
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0]!;
    expect(issue.path).toEqual(["search", "control"]);
    expect(issue.message).toMatch(/36 of 40 runs \(90%\)/);
    expect(issue.message).toMatch(/search\.acceptUnboundedFalsePromotions: true/);
  });

  it("starts with the opt-in, or when a person decides, and is warned about either way", () => {
    const optedIn = runConfigSchema.parse(withSearch({ control: "none", acceptUnboundedFalsePromotions: true }));
    expect(uncontrolledRunWarning(optedIn)).toMatch(/^search\.control: none: .*promotes by the gate alone; a null intervention was promoted in 36 of 40 runs/);
    const gated = runConfigSchema.parse(withSearch({ control: "none" }, { mode: "human_gated" }));
    expect(uncontrolledRunWarning(gated)).toMatch(/asks a person/);
  });

  it("says nothing for a controlled run", () => {
    expect(uncontrolledRunWarning(runConfigSchema.parse(example))).toBeNull();
  });
});
