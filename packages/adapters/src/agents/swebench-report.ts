import type { TestResults } from "@evotrainer/contract";
import { isRecord, TrajectoryShapeError } from "./trajectory-error.ts";

/** What SWE-bench's harness says about one instance's submitted patch. */
export interface SwebenchResult {
  resolved: boolean;
  /** Per test class (FAIL_TO_PASS, PASS_TO_PASS, …), the tests that passed and failed; absent in a summary report. */
  testsStatus?: Record<string, { success: string[]; failure: string[] }>;
  /** The report's other fields for the instance (patch_exists, patch_successfully_applied, …). */
  fields: Record<string, unknown>;
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** One instance's `report.json` body (`{resolved, tests_status, …}`). */
export function swebenchInstanceResult(body: unknown, where: string): SwebenchResult {
  if (!isRecord(body) || typeof body["resolved"] !== "boolean") throw new TrajectoryShapeError(`${where}: a SWE-bench report entry needs a boolean "resolved"`);
  const { resolved, tests_status: status, ...fields } = body;
  const testsStatus: SwebenchResult["testsStatus"] = {};
  if (isRecord(status)) {
    for (const [kind, outcome] of Object.entries(status)) {
      if (isRecord(outcome)) testsStatus[kind] = { success: names(outcome["success"]), failure: names(outcome["failure"]) };
    }
  }
  return { resolved, ...(isRecord(status) ? { testsStatus } : {}), fields };
}

// SWE-bench v1's run summary (`get_model_report`, a published run's `results.json`): each list names
// the instances that reached that stage of its evaluation, in this order.
const V1_STAGES = ["no_generation", "generated", "with_logs", "install_fail", "reset_failed", "no_apply", "applied", "test_errored", "test_timeout", "resolved"] as const;

/**
 * A SWE-bench report file, by instance id. Every shape published runs hold is read: the harness's
 * per-instance `report.json` (`{"<instance_id>": {resolved, tests_status: {FAIL_TO_PASS: {success,
 * failure}, …}}}`, one or many instances), the bare entry mini-swe-agent's published runs keep as
 * `logs/<instance_id>/report.json` (`{patch_is_None, resolved, …}`, its directory naming the
 * instance: `folderInstance`), the run summary (`{resolved_ids, unresolved_ids, empty_patch_ids, error_ids, …}`), and v1's run
 * summary (`{no_generation, generated, applied, resolved, …}`: lists of ids, each instance's `status` the
 * last stage it reached).
 */
export function parseSwebenchReport(json: unknown, where: string, folderInstance?: string): Map<string, SwebenchResult> {
  if (!isRecord(json)) throw new TrajectoryShapeError(`${where}: a SWE-bench report is a JSON object`);
  const results = new Map<string, SwebenchResult>();
  if (typeof json["resolved"] === "boolean") {
    if (!folderInstance) throw new TrajectoryShapeError(`${where}: a bare report entry names no instance; keep it as logs/<instance_id>/report.json, or give the harness's {"<instance_id>": {…}} form`);
    results.set(folderInstance, swebenchInstanceResult(json, where));
    return results;
  }
  if (Array.isArray(json["resolved_ids"])) {
    for (const id of names(json["resolved_ids"])) results.set(id, { resolved: true, fields: {} });
    for (const kind of ["unresolved_ids", "empty_patch_ids", "error_ids"]) {
      for (const id of names(json[kind])) results.set(id, { resolved: false, fields: { status: kind.replace(/_ids$/, "") } });
    }
    return results;
  }
  if (Array.isArray(json["resolved"])) {
    for (const stage of V1_STAGES) {
      for (const id of names(json[stage])) results.set(id, { resolved: stage === "resolved", fields: { status: stage } });
    }
    return results;
  }
  for (const [id, body] of Object.entries(json)) results.set(id, swebenchInstanceResult(body, `${where} ${id}`));
  return results;
}

/** The harness's outcome as the contract's test results: FAIL_TO_PASS and PASS_TO_PASS tests passed of those run. */
export function swebenchTestResults(result: SwebenchResult): TestResults {
  const classes = Object.values(result.testsStatus ?? {});
  const passed = classes.reduce((n, c) => n + c.success.length, 0);
  const total = classes.reduce((n, c) => n + c.success.length + c.failure.length, 0);
  return { passed, total, status: result.resolved ? "resolved" : "unresolved" };
}

/**
 * The join of a report into a rollout: reward 1 when resolved, the test counts, and the report itself
 * in `extra`. Without a result the reward is unknown (null), not a failure.
 */
export function swebenchJoin(result: SwebenchResult | undefined): { reward: number | null; testResults?: TestResults; extra: Record<string, unknown> } {
  if (!result) return { reward: null, extra: {} };
  return {
    reward: result.resolved ? 1 : 0,
    ...(result.testsStatus ? { testResults: swebenchTestResults(result) } : {}),
    extra: { resolved: result.resolved, ...(result.testsStatus ? { testsStatus: result.testsStatus } : {}), ...(Object.keys(result.fields).length > 0 ? { report: result.fields } : {}) },
  };
}
