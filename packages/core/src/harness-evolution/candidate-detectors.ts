import { DETECTOR_CATALOG } from "../catalog/index.ts";
import { compileDetector, verifyDetectorCases, type Detector, type DetectorDefinition, type Domain } from "../harness/detector.ts";
import type { Harness } from "../harness/harness.ts";
import { EXTRA_DETECTORS } from "./candidate-library.ts";
import { domainMismatch } from "./domain-fields.ts";

/**
 * Detectors the harness lacks for this domain, from the library entries written for it. Another
 * domain's rule is never offered: a math final-answer rule read on swe episodes fires on all of
 * them and means nothing (the gym-swe run that registered swe.format_error). A label the harness
 * already reads for the domain is skipped, and so is any candidate that fails the CEL guards or its
 * own cases. Candidates never carry validity: deciding that a label voids a success is left to people.
 */
export function candidateDetectors(
  harness: Pick<Harness, "detectors">,
  domain: Domain,
  library: readonly DetectorDefinition[] = [...EXTRA_DETECTORS, ...DETECTOR_CATALOG],
): Detector[] {
  const known = new Set(harness.detectors.filter((d) => d.domains.includes(domain)).map((d) => d.label));
  const ids = new Set(harness.detectors.map((d) => d.id));
  const out: Detector[] = [];
  for (const def of library) {
    if (known.has(def.label) || domainMismatch(def, domain) !== null) continue;
    const candidate = { ...def, id: `${domain}.${def.label}`, version: 1, domains: [domain], validity: false };
    if (ids.has(candidate.id)) continue;
    const compiled = compileDetector(candidate);
    if (!compiled.ok || verifyDetectorCases(compiled.detector).length > 0) continue;
    known.add(def.label);
    out.push(compiled.detector.definition);
  }
  return out;
}
