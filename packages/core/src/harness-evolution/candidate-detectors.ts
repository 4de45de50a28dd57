import { DETECTOR_CATALOG } from "../catalog/index.ts";
import { compileDetector, verifyDetectorCases, type Detector, type DetectorDefinition, type Domain } from "../harness/detector.ts";
import type { Harness } from "../harness/harness.ts";
import { EXTRA_DETECTORS } from "./candidate-library.ts";

/**
 * Detectors the harness lacks for this domain: those the library declares for it first, then the
 * other domains' ones carried over (retro-validation finds out whether they mean anything here). A label the harness already reads for the domain is skipped, and
 * so is any candidate that fails the CEL guards or its own cases: only sound rules get replayed.
 * Candidates never carry validity: deciding that a label voids a success is left to people.
 */
export function candidateDetectors(
  harness: Pick<Harness, "detectors">,
  domain: Domain,
  library: readonly DetectorDefinition[] = [...EXTRA_DETECTORS, ...DETECTOR_CATALOG],
): Detector[] {
  const known = new Set(harness.detectors.filter((d) => d.domains.includes(domain)).map((d) => d.label));
  const ids = new Set(harness.detectors.map((d) => d.id));
  const out: Detector[] = [];
  const declared = library.filter((d) => d.domains.includes(domain));
  const carried = library.filter((d) => !d.domains.includes(domain));
  for (const def of [...declared, ...carried]) {
    if (known.has(def.label)) continue;
    const candidate = { ...def, id: `${domain}.${def.label}`, version: 1, domains: [domain], validity: false };
    if (ids.has(candidate.id)) continue;
    const compiled = compileDetector(candidate);
    if (!compiled.ok || verifyDetectorCases(compiled.detector).length > 0) continue;
    known.add(def.label);
    out.push(compiled.detector.definition);
  }
  return out;
}
