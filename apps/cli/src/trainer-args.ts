import { refusedTrainerArgs, TrainerPythonError } from "@evotrainer/adapters";
import { trainerArgFields, trlArgProblems, type RunConfig } from "@evotrainer/core";
import { probeHere } from "@evotrainer/executors";
import { uncheckedTrainerArgsWarning, type TrainerArgsAnswer } from "@evotrainer/queue";

// One import of the trainer (torch included) on this machine.
const LOCAL_TIMEOUT_SECONDS = 300;

/** The error that refuses a run: the file, then one line per field. */
function refusal(file: string, problems: readonly string[], where = ""): Error {
  return new Error(`${file}: invalid run config${where ? ` (trainer arguments checked on ${where})` : ""}:\n${problems.map((line) => `  - ${line}`).join("\n")}`);
}

/**
 * Refuses a run whose trainer arguments its trainer does not take, before anything is created: TRL's
 * `trainer.args` and `recipe.passthrough.trl` against GRPOConfig, verl's `trainer.overrides` and
 * `recipe.passthrough.verl` against its Hydra config, both asked of `trainer.python` where the run's
 * jobs run. A local run is checked here, on this machine; a run on SSH nodes or Kubernetes is checked
 * by a worker (`ask`), which holds the nodes' keys and the cluster's credentials, on a node of the run
 * or in a pod of its pool. Returns what to tell the person: where the arguments were checked, or,
 * when no worker answered in time, a warning that the run's first job checks them when it starts.
 */
export async function checkTrainerArgs(file: string, config: RunConfig, ask: () => Promise<TrainerArgsAnswer>): Promise<string | null> {
  // Keys a recipe factor owns and values no job renders with are refused before the trainer is asked.
  const problems = trlArgProblems(config);
  if (problems.length > 0) throw refusal(file, problems);
  if (!trainerArgFields(config)) return null;
  if (config.executor === "local") {
    const { problems } = await refusedTrainerArgs(config, probeHere, LOCAL_TIMEOUT_SECONDS).catch((error: Error) => {
      throw error instanceof TrainerPythonError ? new Error(`${file}: ${error.message}`) : error;
    });
    if (problems.length > 0) throw refusal(file, problems);
    return null;
  }
  const answer = await ask();
  if (answer.verdict === "refused") throw refusal(file, answer.problems, answer.where);
  return answer.verdict === "unchecked" ? uncheckedTrainerArgsWarning(answer.reason) : `trainer arguments checked by trainer.python on ${answer.where}`;
}
