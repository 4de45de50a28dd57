import type { DetectorDefinition } from "../harness/detector.ts";
import { CODE_DETECTORS } from "./code.ts";
import { MATH_DETECTORS } from "./math.ts";
import { SWE_DETECTORS } from "./swe.ts";

/** The built-in detector catalog: the starting harness of a run, per domain. */
export const DETECTOR_CATALOG: readonly DetectorDefinition[] = [...MATH_DETECTORS, ...CODE_DETECTORS, ...SWE_DETECTORS];

export { CODE_DETECTORS, MATH_DETECTORS, SWE_DETECTORS };
