import { AGENT_IMPORT_USAGE } from "./agent-import-options.ts";
import { IMPORT_USAGE } from "./import-options.ts";

/** `evotrainer import --help`: every format, and the layouts each reads as published, without flags. */
export const IMPORT_HELP = `${IMPORT_USAGE}
${AGENT_IMPORT_USAGE}

Trainer runs (a new base branch of --run, or of a run created from --config):
  verl            <step>.jsonl dumps (trainer.rollout_data_dir) in rollouts/, verl/rollouts/ or the directory
                  itself; validation dumps in validation/ or verl/validation/; metrics.jsonl; reward_components.jsonl
  trl             completions/*.parquet or trl/completions/*.parquet (log_completions); trainer_state.json
                  or checkpoint-*/trainer_state.json for the trainer's metrics

Agent trajectories (into examples/imported-swe.yaml's run unless --run or --config); a directory is
searched at any depth, and the report files under it (report.json, output.swebench_eval.jsonl, SWE-bench
v1's <id>.<model>.eval.log) are joined by
instance id (reward 1 when resolved), as are those beside a single file, or --report <file or directory>:
  mini-swe-agent  trajs/<id>/<id>.traj.json beside logs/<id>/report.json (a run's output directory),
                  or JSONL of trajectories (.jsonl, .jsonl.gz), one per line
  swe-agent       a directory of <id>.traj files (SWE-agent's trajectories/<user>/<run>/<id>/<id>.traj), or a
                  published run's trajs/<id>.traj beside SWE-bench v1's logs/<id>.<model>.eval.log
  openhands       output.jsonl (and .gz) of OpenHands' run_infer.py, one instance per line (its output
                  directory evaluation_outputs/outputs/<dataset>/<agent>/<model>_maxiter_<n>/), and the
                  output.critic_attempt_<n>.jsonl its iterative mode (ITERATIVE_EVAL_MODE) writes per attempt
                  beside or instead of it; results from the report.json or output.swebench_eval.jsonl beside
                  it (joined to the attempt output.jsonl kept), or the line's own report
  openai-chat     .jsonl, .json (and .gz) of OpenAI-style chats: a list of messages, or an object holding one
                  under messages, conversation, chat or trajectory, per line
Without a format (evotrainer import <file-or-dir> …), the layout names it: output.jsonl and
output.critic_attempt_<n>.jsonl are openhands, <id>.traj swe-agent, <id>.traj.json mini-swe-agent
(a directory must hold one kind), and another .jsonl file is told by its first line.
SWE-bench results: every logs/run_evaluation/<run>/<model>/<id>/report.json and v1 <id>.<model>.eval.log
under the imported directory or under --report, or one report file (per-instance, the run summary with
resolved_ids, v1's summary results.json with resolved, or OpenHands' output.swebench_eval.jsonl).

Each trajectory is named by its task and a hash of its messages (and its attempt, for OpenHands'
attempts): importing a file again, rewritten, reordered or concatenated with others adds only
trajectories not yet imported.`;
