"""Writes what verl's trainer writes, in verl's formats, for tests of the verl job wrapper on a
machine without a GPU (verl generates with vLLM, SGLang or TRT-LLM only). Takes verl's Hydra
overrides and, per training step, writes the rollout dump `{step}.jsonl` (v1 trainer: `uid` =
`{sample}_{rollout}_{output}`), a file-logger metrics line; at the last step the validation dump
and `global_step_N/` with `latest_checkpointed_iteration.txt`. The responses are real model
output: GPT-3's GSM8K solutions (tests/fixtures/real), scored by their `is_correct`.

    python verl_format_trainer.py SOLUTIONS.jsonl key=value ...   (VERL_FORMAT_FAIL=config fails as Hydra does)
"""

import json
import os
import sys

SOLVERS = ["6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"]


def main(solutions_file, overrides):
    if os.environ.get("VERL_FORMAT_FAIL") == "config":
        print("omegaconf.errors.ConfigAttributeError: Key 'no_such_key' is not in struct", file=sys.stderr)
        print("    full_key: actor_rollout_ref.actor.no_such_key", file=sys.stderr)
        sys.exit(1)
    o = dict(arg.lstrip("+").split("=", 1) for arg in overrides)
    with open(solutions_file, encoding="utf-8") as f:
        problems = [json.loads(line) for _, line in zip(range(12), f)]
    group = int(o["actor_rollout_ref.rollout.n"])
    val_only = o.get("trainer.val_only") == "true"
    steps = 0 if val_only else int(o["trainer.total_training_steps"])

    def dump(directory, step, batch, with_uid):
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, f"{step}.jsonl"), "w", encoding="utf-8") as f:
            for sample, problem in enumerate(batch):
                for rollout in range(group):
                    solution = problem[SOLVERS[rollout % len(SOLVERS)]]
                    line = {"input": problem["question"], "output": solution["solution"], "gts": problem["ground_truth"].split("A: ")[-1], "score": 1.0 if solution["is_correct"] else 0.0, "step": step}
                    if with_uid:
                        line["uid"] = f"{sample}_{rollout}_0"
                    else:
                        line["acc"] = line["score"]
                    f.write(json.dumps(line) + "\n")

    logger = os.environ["VERL_FILE_LOGGER_PATH"]
    os.makedirs(os.path.dirname(logger), exist_ok=True)
    for step in range(1, steps + 1):
        dump(o["trainer.rollout_data_dir"], step, problems[(step - 1) * 2 : step * 2], with_uid=True)
        with open(logger, "a", encoding="utf-8") as f:
            f.write(json.dumps({"step": step, "data": {"actor/entropy": 1.0 / step, "actor/pg_clipfrac": 0.01, "critic/score/mean": 0.5}}) + "\n")
    # Validation of the locked split: after the last step, or alone (val_only).
    dump(o["trainer.validation_data_dir"], steps, problems[8:12], with_uid=False)
    if steps > 0:
        root = o["trainer.default_local_dir"]
        os.makedirs(os.path.join(root, f"global_step_{steps}", "actor"), exist_ok=True)
        with open(os.path.join(root, "latest_checkpointed_iteration.txt"), "w") as f:
            f.write(str(steps))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
