"""EvoTrainer's TRL job: TRL's GRPOTrainer as an evo.job/v1 job (shipped by trl-adapter.ts).

    python3 evo_trl_job.py job.json trl-grpo.yaml

A train job trains with the rendered GRPOConfig arguments and writes every generation batch as
training rollouts (real token counts; finish reason "length" when TRL clipped the completion),
TRL's logged metrics, a heartbeat, the saved model as the checkpoint, then evaluates the trained
model on the job's locked splits. An eval job loads the branch's model and only evaluates. Each
split is evaluated as the run's locked evaluation says: its tasks, samples per task, temperature,
token limit and grader.
"""

import hashlib
import importlib.util
import json
import math
import os
import sys

import evo_job
from evo_job import ConfigError, DataError

FINAL_MODEL = os.path.join("trl", "final")
# TRL's metric names under the names health rules read (as packages/adapters/src/trl/trl-metrics.ts).
SHORT_NAMES = {"clip_ratio/region_mean": "clip_fraction"}


def load_tasks(source, limit=None):
    """Tasks of a JSONL, JSON or parquet file (or a Hub dataset): `prompt`, `answer`, optional `task_id`."""
    if os.path.exists(source) and source.endswith(".jsonl"):
        with open(source, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    elif os.path.exists(source) and source.endswith(".json"):
        with open(source, encoding="utf-8") as f:
            rows = json.load(f)
    elif os.path.exists(source) and source.endswith(".parquet"):
        import datasets

        rows = list(datasets.load_dataset("parquet", data_files=source, split="train"))
    elif os.path.exists(source) or source.startswith(("/", ".")):
        raise ConfigError(f"dataset {source}: not a .jsonl, .json or .parquet file, or not found")
    else:
        import datasets

        rows = list(datasets.load_dataset(source, split="train"))
    if limit is not None:
        rows = rows[:limit]
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("prompt"), str) or "answer" not in row:
            raise DataError(f"dataset {source}, row {index + 1}: needs a string `prompt` and an `answer`")
        row["answer"] = str(row["answer"])
        row["task_id"] = str(row.get("task_id") or f"task-{hashlib.sha256(row['prompt'].encode()).hexdigest()[:12]}")
    if not rows:
        raise DataError(f"dataset {source} holds no tasks")
    return rows


def load_function(spec, what):
    module_spec = importlib.util.spec_from_file_location(f"evo_user_{what}", spec["path"])
    if module_spec is None or module_spec.loader is None or not os.path.exists(spec["path"]):
        raise ConfigError(f"{what}: cannot load {spec['path']}")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    name = spec.get("name") or what
    if not hasattr(module, name):
        raise ConfigError(f"{what}: {spec['path']} has no function {name}")
    return getattr(module, name)


def component_scorers(job, settings):
    """One scorer per recipe component, in the recipe's order: `score(completions, answers, **columns)`."""
    import evo_reward

    builtins = evo_reward.BUILTINS.get(job["domain"], {})
    scorers = {}
    for name in job["recipe"]["reward"]["components"]:
        if name in settings.get("rewardFunctions", {}):
            user = load_function(settings["rewardFunctions"][name], name)
            scorers[name] = lambda completions, answers, user=user, **columns: user(completions=completions, answer=answers, **columns)
        elif name in builtins:
            builtin = builtins[name]
            scorers[name] = lambda completions, answers, builtin=builtin, **columns: [builtin(c, a, {}) for c, a in zip(completions, answers)]
        else:
            raise ConfigError(
                f"reward component {name}: no built-in for the {job['domain']} domain; name a function for it in trainer.rewardFunctions"
            )
    return scorers


def grader_for(spec, domain):
    """The locked grader of a split: `math` (the final answer equals the task's answer) or `file.py:function`."""
    grader = spec["grader"]
    if grader == "math" or (grader == "correctness" and domain == "math"):
        import evo_reward

        return lambda completion, answer: 1.0 if evo_reward.answers_equal(evo_reward.final_answer(completion), answer) else 0.0
    if ":" in grader:
        path, name = grader.rsplit(":", 1)
        return load_function({"path": path, "name": name}, "grader")
    raise ConfigError(f"grader {grader}: the TRL job knows `math` or `path/to/file.py:function`")


def as_reward(value):
    """A reward function's value as TRL takes it: None (the function does not apply to the sample)
    becomes NaN, which TRL leaves out of the weighted sum (nansum) and of the function's mean."""
    return math.nan if value is None else float(value)
def policy_token_stats(model, tokenizer, temperature, prompts, completion_ids):
    """Per-token log-probs and entropies of each sampled completion under the policy that sampled it.

    The weights have not moved since this batch was generated, so one no-grad forward pass over
    prompt + completion, with logits divided by the sampling temperature, gives the log-probs GRPO's
    loss starts from (its old_per_token_logps). The contract's optional `tokens` field carries them.
    """
    import torch

    device = next(model.parameters()).device
    stats = []
    with torch.no_grad():
        for prompt, ids in zip(prompts, completion_ids):
            ids = [int(t) for t in ids]
            if not ids or not isinstance(prompt, str):
                stats.append(None)
                continue
            prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
            full = torch.tensor([prompt_ids + ids], device=device)
            logits = model(full).logits[0, len(prompt_ids) - 1 : -1].float() / (temperature or 1.0)
            logp = torch.log_softmax(logits, dim=-1)
            chosen = logp.gather(1, torch.tensor(ids, device=device).unsqueeze(1)).squeeze(1)
            entropy = -(logp.exp() * logp).sum(-1)
            stats.append({
                "logprobs": [round(float(x), 5) for x in chosen],
                "entropies": [round(float(x), 5) for x in entropy],
                "pieces": [tokenizer.decode([t]) for t in ids],
            })
    return stats


class TrainRollouts:
    """Collects each generation batch's component scores and appends it to its step's training rollouts.

    TRL calls the reward functions once per generation batch: `generation_batch_size` completions,
    `num_generations` per prompt, whole groups. With `steps_per_generation` (by default
    `gradient_accumulation_steps`) micro-batches per generation, one generation feeds one optimizer
    step or more; one asked smaller than that generates more than once per step. Each generation is
    stored under the optimizer step it was made in (`global_step + 1`), numbered within the step, so
    every completion keeps its own uid and a step's file grows by one batch per generation.
    """

    # Set by train(): (prompts, completion_ids) -> per-completion token stats, or None to record none.
    token_stats = None

    def __init__(self, files, scorers, weights, group_size, stop_ids):
        self.files, self.scorers, self.weights = files, scorers, weights
        self.group_size, self.stop_ids = group_size, stop_ids
        self.scores = {}
        self.generations = {}

    def reward_functions(self):
        """GRPOTrainer's reward functions: named after the components, called in this order each batch."""
        names = list(self.scorers)

        def make(name):
            def reward(prompts, completions, completion_ids, trainer_state, answer, task_id, **columns):
                extra = {k: v for k, v in columns.items() if k not in ("log_extra", "log_metric", "environments")}
                try:
                    values = [as_reward(v) for v in self.scorers[name](completions, answer, prompts=prompts, task_id=task_id, **extra)]
                except (ConfigError, DataError):
                    raise
                except Exception as error:
                    raise DataError(f"reward component {name} failed: {type(error).__name__}: {error}") from error
                if len(values) != len(completions):
                    raise DataError(f"reward component {name} returned {len(values)} values for {len(completions)} completions")
                self.scores[name] = values
                if name == names[-1]:
                    self.write(trainer_state.global_step + 1, prompts, completions, completion_ids, answer, task_id)
                    self.scores = {}
                return [None if math.isnan(v) else v for v in values]

            reward.__name__ = name
            return reward

        return [make(name) for name in names]

    def write(self, step, prompts, completions, completion_ids, answers, task_ids):
        generation = self.generations.get(step, 0)
        self.generations[step] = generation + 1
        tokens = self.token_stats(prompts, completion_ids) if self.token_stats else [None] * len(completions)
        rows = []
        for i, (prompt, completion, ids) in enumerate(zip(prompts, completions, completion_ids)):
            # A component that returned None for this sample is left out, as TRL leaves it out of the sum.
            components = {name: values[i] for name, values in self.scores.items() if not math.isnan(values[i])}
            # As TRL's clipped_ratio: a completion that does not end in EOS (or pad) hit the token limit.
            truncated = len(ids) == 0 or ids[-1] not in self.stop_ids
            rows.append({
                "uid": f"trl/train/{step}/{generation}/{i}",
                "split": "train",
                "step": step,
                "taskId": task_ids[i],
                "groupId": f"{step}/{generation}/{i // self.group_size}",
                "sample": i % self.group_size,
                "prompt": prompt,
                "response": completion,
                "reward": sum(self.weights[n] * v for n, v in components.items()),
                "rewardComponents": components,
                "responseTokens": len(ids),
                "finishReason": "length" if truncated else "stop",
                "truncated": truncated,
                "groundTruth": answers[i],
                "extra": {"generation": generation},
                **({"tokens": tokens[i]} if tokens[i] else {}),
            })
        self.files.append_rollouts("train", step, rows)
        self.files.last_step = step


def evaluate(files, job, model, tokenizer, step):
    """Every split the job asks for, under the locked settings; eval rollouts and eval/step_N.json."""
    import torch

    rows, splits = [], {}
    evaluation = job["evaluation"]
    for split in job["evalSplits"]:
        spec = evaluation[split]
        grade = grader_for(spec, job["domain"])
        tasks = load_tasks(spec["dataset"], spec.get("taskCount"))
        torch.manual_seed(evaluation["seed"])
        model.eval()
        per_task = []
        for n, task in enumerate(tasks):
            files.heartbeat(step, "eval", n / len(tasks), f"{split}: task {n + 1} of {len(tasks)}")
            encoded = tokenizer(task["prompt"], return_tensors="pt").to(model.device)
            sampling = {"do_sample": True, "temperature": spec["temperature"]} if spec["temperature"] > 0 else {"do_sample": False}
            with torch.no_grad():
                out = model.generate(
                    **encoded,
                    max_new_tokens=spec["maxResponseTokens"],
                    num_return_sequences=spec["samplesPerTask"],
                    pad_token_id=tokenizer.pad_token_id,
                    **sampling,
                )
            rewards = []
            for sample, sequence in enumerate(out[:, encoded["input_ids"].shape[1]:].tolist()):
                ids = trim_after_stop(sequence, tokenizer)
                text = tokenizer.decode(ids, skip_special_tokens=True)
                reward = float(grade(text, task["answer"]))
                rewards.append(reward)
                truncated = len(ids) == 0 or ids[-1] != tokenizer.eos_token_id
                rows.append({
                    "uid": f"trl/{split}/{step}/{task['task_id']}/{sample}",
                    "split": split,
                    "step": step,
                    "taskId": task["task_id"],
                    "groupId": f"{split}/{task['task_id']}",
                    "sample": sample,
                    "prompt": task["prompt"],
                    "response": text,
                    "reward": reward,
                    "rewardComponents": {spec["grader"]: reward},
                    "responseTokens": len(ids),
                    "finishReason": "length" if truncated else "stop",
                    "truncated": truncated,
                    "groundTruth": task["answer"],
                })
            per_task.append({
                "taskId": task["task_id"],
                "samples": len(rewards),
                "meanReward": sum(rewards) / len(rewards),
                "passRate": sum(1 for r in rewards if r >= 0.5) / len(rewards),
            })
        splits[split] = {"score": sum(t["meanReward"] for t in per_task) / len(per_task), "tasks": per_task}
    files.rollouts("eval", step, rows)
    files.eval_result(step, splits)


def trim_after_stop(ids, tokenizer):
    """The generated ids up to and including the first EOS; padding after it is not the model's."""
    if tokenizer.eos_token_id in ids:
        return ids[: ids.index(tokenizer.eos_token_id) + 1]
    return ids


def grpo_config(args):
    from trl import GRPOConfig

    try:
        return GRPOConfig(**args)
    except (TypeError, ValueError) as error:
        # GRPOConfig checks its arguments when built: an unknown name or a batch that cannot hold
        # whole groups fails every attempt the same way.
        raise ConfigError(f"GRPOConfig refused the arguments: {error}") from error


def load_model(path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path)
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot load the model {path}: {error}") from error
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def train(files, job, args, settings):
    import datasets
    from transformers import TrainerCallback
    from trl import GRPOTrainer

    model_path = args.pop("model_name_or_path")
    config = grpo_config(args)
    scorers = component_scorers(job, settings)
    if not settings.get("dataset"):
        raise ConfigError("a TRL train job needs trainer.dataset (the training tasks)")
    tasks = load_tasks(settings["dataset"])
    # TRL starts over on a retry and the steps' files are appended to: an earlier attempt's go first.
    files.clear("rollouts", "train")
    model, tokenizer = load_model(model_path)
    weights = dict(zip(scorers, config.reward_weights or [1.0] * len(scorers)))
    stop_ids = {tokenizer.eos_token_id, tokenizer.pad_token_id}
    recorder = TrainRollouts(files, scorers, weights, config.num_generations, stop_ids)
    recorder.token_stats = lambda prompts, ids: policy_token_stats(model, tokenizer, config.temperature, prompts, ids)
    max_steps = job["budget"]["maxSteps"]

    class ContractCallback(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            files.heartbeat(state.global_step, "rollout", state.global_step / max_steps)

        def on_step_end(self, args, state, control, **kwargs):
            files.heartbeat(state.global_step, "update", state.global_step / max_steps)

        # The Trainer logs a step more than once (the step's metrics, then the run's summary at the
        # last step); the contract holds one line per step, so a step's logs merge until the next.
        def __init__(self):
            self.pending = {}

        def on_log(self, args, state, control, logs=None, **kwargs):
            if self.pending and self.pending["step"] != state.global_step:
                self.flush()
            data = self.pending.setdefault("data", {})
            self.pending["step"] = state.global_step
            data.update(logs or {})
            for long, short in SHORT_NAMES.items():
                if long in data and short not in data:
                    data[short] = data[long]

        def on_train_end(self, args, state, control, **kwargs):
            self.flush()

        def flush(self):
            if self.pending:
                files.metrics(self.pending["step"], self.pending["data"])
            self.pending = {}

    trainer = GRPOTrainer(
        model=model,
        reward_funcs=recorder.reward_functions(),
        args=config,
        train_dataset=datasets.Dataset.from_list(tasks),
        processing_class=tokenizer,
        callbacks=[ContractCallback()],
    )
    trainer.train()
    step = trainer.state.global_step
    files.heartbeat(step, "checkpoint", 1.0)
    trainer.save_model(files.path(FINAL_MODEL))
    tokenizer.save_pretrained(files.path(FINAL_MODEL))
    files.checkpoint(step, FINAL_MODEL)
    files.last_step = step
    evaluate(files, job, trainer.model, tokenizer, step)


def main(argv):
    if len(argv) != 3:
        print("usage: evo_trl_job.py job.json trl-grpo.yaml", file=sys.stderr)
        sys.exit(2)
    job_file, config_file = argv[1], argv[2]
    with open(job_file, encoding="utf-8") as f:
        written = json.load(f)
    output_dir, attempt = written["outputDir"], written.get("attempt")

    def body(files):
        job = evo_job.read_job(job_file)
        with open(config_file, encoding="utf-8") as f:
            args = json.load(f)
        settings = job["adapter"]
        files.heartbeat(0, "setup", 0.0)
        # Graders are checked before any training, so a bad one fails at once, not after the run.
        for split in job["evalSplits"]:
            grader_for(job["evaluation"][split], job["domain"])
        if job["kind"] == "train":
            train(files, job, args, settings)
        else:
            model, tokenizer = load_model(job["policy"].get("checkpoint") or job["policy"]["base"])
            files.last_step = 0
            evaluate(files, job, model, tokenizer, 0)
        files.heartbeat(files.last_step or 0, "teardown", 1.0)

    evo_job.run_job(output_dir, body, attempt)


if __name__ == "__main__":
    main(sys.argv)
