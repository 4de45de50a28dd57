import { DEFAULT_HEALTH_RULES, DETECTOR_CATALOG, type Recipe } from "@evotrainer/core";
import { LabelStore } from "../loop/branch-labels.ts";
import { gateSide } from "../loop/gate-side.ts";
import { trainGymBranch } from "../loop/gym-branch.ts";
import { compiled } from "../loop/harness-check.ts";
import { loadRunConfig } from "../loop/run-config.ts";
const steps = Number(process.argv[2] ?? 30);
const config = loadRunConfig(`examples/gym-swe.yaml`, (c) => { c.search.stepsPerBranch = steps; });
const harness = compiled({ version: 1, detectors: DETECTOR_CATALOG.filter((d) => d.domains.includes("swe")), healthRules: [...DEFAULT_HEALTH_RULES], gate: config.gate });
const labels = new LabelStore("swe");
const adapter = {};
const parent = trainGymBranch({ config: loadRunConfig(`examples/gym-swe.yaml`), runId: "r", branchId: "p", version: 0, recipe: config.recipe, adapter });
for (const [name, ch] of [["ro", (r: Recipe) => { r.env.readOnlyTests = true; }], ["tw", (r: Recipe) => { r.reward.components.test_tampering = { weight: -1 }; }]] as const) {
  const rates: string[] = [];
  for (let v = 1; v <= 12; v++) {
    const r = structuredClone(config.recipe); ch(r);
    const b = trainGymBranch({ config, runId: "r", branchId: `${name}${v}`, version: v, recipe: r, start: parent.policy, adapter });
    const s = gateSide({ id: `${name}${v}`, train: b.train, promotion: b.promotion, maxResponseTokens: 4096 }, harness, labels);
    rates.push((s.report.metrics.label_rate.test_tampering ?? 0).toFixed(3));
  }
  console.log(name, steps, rates.join(" "));
}
