// Failure discovery on the shared real SWE set (issue 29, section 4): the 150 mini-swe-agent
// SWE-bench Verified trajectories, labelled by the whole swe catalog; the unresolved ones that no
// detector explains, clustered by normalised error signature. Prints the top 10 clusters.
// Run: npm run report:unexplained   (the output is quoted in docs/unexplained-failures.md)
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { miniSweAgentRollout } from "@evotrainer/adapters";
import { compileHarness, nonSeparatingLabels, SWE_DETECTORS, unexplainedFailures } from "@evotrainer/core";

const FIXTURE = new URL("../fixtures/real/mini-swe-agent-gemini-3-pro-dev150.jsonl.gz", import.meta.url);
const TOP = 10;

const lines = gunzipSync(readFileSync(FIXTURE)).toString("utf8").trim().split("\n");
const rollouts = lines.map((line, i) => miniSweAgentRollout(JSON.parse(line), { where: `line ${i + 1}` }));
const compiled = compileHarness({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [] });
if (!compiled.ok) throw new Error(`the swe catalog does not compile: ${compiled.rejections.map((r) => r.message).join("; ")}`);
const { labels } = compiled.harness.label(rollouts, "swe");
const threshold = compiled.harness.definition.gate.successThreshold;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function table(title: string, notExplaining: string[]): void {
  const found = unexplainedFailures(rollouts, labels, { domain: "swe", successThreshold: threshold, notExplaining, maxExamples: 3 });
  console.log(`## ${title}`);
  console.log();
  console.log(
    `${found.rollouts} trajectories, ${found.failures} failed (unresolved, or voided by a validity label), ${found.unexplained} of them with no explaining label (${pct(found.unexplained / Math.max(1, found.failures))}), in ${found.clusters.length} clusters.` +
      (notExplaining.length > 0 ? ` Labels not counted as explaining: ${notExplaining.join(", ")}.` : ""),
  );
  console.log();
  console.log(`| # | count | share of failures | signature | examples |`);
  console.log(`|---|---|---|---|---|`);
  found.clusters.slice(0, TOP).forEach((c, i) => {
    console.log(`| ${i + 1} | ${c.count} | ${pct(c.shareOfFailures)} | \`${c.key.replaceAll("|", "\\|")}\` | ${c.exampleUids.join(", ")} |`);
  });
  console.log();
}

table("Every label of the catalog counts as an explanation", []);
table("Only labels that separate failed from successful trajectories count", nonSeparatingLabels(rollouts, labels, threshold));
