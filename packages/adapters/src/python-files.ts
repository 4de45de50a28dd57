import { readFileSync } from "node:fs";

/** The contract's Python helpers (evo_job.py), shipped into the directory of every Python-wrapped job. */
export const EVO_JOB_PY = { "evo_job.py": readFileSync(new URL("./python/evo_job.py", import.meta.url), "utf8") };
