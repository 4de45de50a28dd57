"""EvoTrainer's verl job: verl's trainer as an evo.job/v1 job (shipped by verl-adapter.ts).

    python3 evo_verl_job.py job.json -- python3 -m verl.trainer.main_ppo key=value ...

Runs the trainer command after `--` and, while it runs and once more when it ends, maps verl's
dumps to the contract: `trainer.rollout_data_dir/{step}.jsonl` to training rollouts,
`trainer.validation_data_dir/{step}.jsonl` (verl's validation of the locked split: at the last
step of a train job, or alone with `trainer.val_only` for an eval job) to evaluation rollouts and
`eval/step_N.json`. verl's dumps hold text, not token ids, so responses are counted with the
model's tokenizer, and one as long as `data.max_response_length` was cut there. verl's file
logger writes metrics.jsonl itself. After training, checkpoints/latest.json points at verl's
newest `global_step_N` directory, which a child branch resumes from.
"""

import hashlib
import json
import os
import subprocess
import sys
import threading
from collections import OrderedDict, deque

import evo_job
from evo_job import ConfigError

VERL_DIR = "verl"
POLL_SECONDS = 5.0
# Errors verl raises before training when its configuration is wrong: Hydra's and OmegaConf's own
# exceptions and verl's config checks. A rerun fails the same way, so these exit 2.
CONFIG_ERROR_MARKERS = (
    "hydra.errors",
    "omegaconf.errors",
    "ConfigAttributeError",
    "ConfigKeyError",
    "Could not override",
    "MissingMandatoryValue",
    "Error merging override",
)
OOM_MARKERS = ("CUDA out of memory", "OutOfMemoryError", "torch.OutOfMemoryError")


def short_hash(*parts):
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8", "replace")).hexdigest()[:12]


def override_value(command, key, default=None):
    """A Hydra override's value on the trainer's command line (`key=value`), as text."""
    prefix = f"{key}="
    for arg in command:
        if arg.lstrip("+").startswith(prefix):
            return arg.lstrip("+")[len(prefix):].strip("'")
    return default


class Tokens:
    """Response token counts with the model's tokenizer, loaded once when a dump first needs it."""

    def __init__(self, model_path):
        self.model_path = model_path
        self.tokenizer = None

    def count(self, text):
        if self.tokenizer is None:
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(self.model_path)
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])


def read_dump(path):
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    # A line verl was still writing; the next pass reads the whole file again.
                    return None
    return rows


def dump_to_rollouts(lines, split, step, tokens, max_tokens):
    """verl's dump lines as contract rollouts (as packages/adapters/src/verl/verl-dump.ts maps them)."""
    seen = {}
    out = []
    for index, line in enumerate(lines):
        prompt = line.get("input") if isinstance(line.get("input"), str) else json.dumps(line.get("input", ""))
        response = line.get("output") if isinstance(line.get("output"), str) else json.dumps(line.get("output", ""))
        task_id = f"verl-{short_hash(prompt)}"
        nth = seen.get(task_id, 0)
        seen[task_id] = nth + 1
        uid = line.get("uid") if isinstance(line.get("uid"), str) and line.get("uid") else short_hash(step, index, prompt)
        v1 = uid.split("_") if isinstance(line.get("uid"), str) else []
        components, extra = {}, {}
        for key, value in line.items():
            if key in ("input", "output", "gts", "score", "step", "uid"):
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                components[key] = value
            else:
                extra[key] = value
        count = tokens.count(response)
        truncated = max_tokens is not None and count >= max_tokens
        rollout = {
            "uid": f"verl/{split}/{step}/{uid}",
            "split": split,
            "step": step,
            "taskId": task_id,
            "groupId": f"{task_id}@{split}/{step}",
            "sample": int(v1[1]) if len(v1) == 3 and all(p.isdigit() for p in v1) else nth,
            "prompt": prompt,
            "response": response,
            "reward": line.get("score"),
            "rewardComponents": components,
            "responseTokens": count,
            "finishReason": "length" if truncated else "stop",
            "truncated": truncated,
            "groundTruth": line.get("gts"),
        }
        if extra:
            rollout["extra"] = extra
        out.append(rollout)
    return out


def split_result(rollouts):
    """The split's score: mean over tasks of each task's mean reward; a sample passes at reward ≥ 0.5."""
    by_task = OrderedDict()
    for r in rollouts:
        reward = r["reward"] if isinstance(r["reward"], (int, float)) else 0.0
        by_task.setdefault(r["taskId"], []).append(float(reward))
    tasks = [
        {"taskId": task, "samples": len(rewards), "meanReward": sum(rewards) / len(rewards), "passRate": sum(1 for x in rewards if x >= 0.5) / len(rewards)}
        for task, rewards in by_task.items()
    ]
    return {"score": sum(t["meanReward"] for t in tasks) / len(tasks) if tasks else 0.0, "tasks": tasks}


class DumpMapper:
    """Maps each dump file again whenever it changed (verl rewrites a resumed step's file)."""

    def __init__(self, files, job, command):
        self.files, self.job = files, job
        self.sizes = {}
        self.tokens = Tokens(job["policy"]["base"])
        max_tokens = override_value(command, "data.max_response_length")
        self.max_tokens = int(max_tokens) if max_tokens and max_tokens.isdigit() else None
        self.eval_split = job["evalSplits"][0]
        self.train_dir = override_value(command, "trainer.rollout_data_dir", os.path.join(files.output_dir, VERL_DIR, "rollouts"))
        self.val_dir = override_value(command, "trainer.validation_data_dir", os.path.join(files.output_dir, VERL_DIR, "validation"))
        self.last_step = 0

    def changed(self, directory):
        if not os.path.isdir(directory):
            return []
        out = []
        for name in sorted(os.listdir(directory)):
            stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else None
            if stem is None or not stem.isdigit():
                continue
            path = os.path.join(directory, name)
            size = os.path.getsize(path)
            if self.sizes.get(path) != size:
                out.append((int(stem), path, size))
        return out

    def sync(self):
        for step, path, size in self.changed(self.train_dir):
            lines = read_dump(path)
            if lines is None:
                continue
            self.files.rollouts("train", step, dump_to_rollouts(lines, "train", step, self.tokens, self.max_tokens))
            self.sizes[path] = size
            self.last_step = max(self.last_step, step)
            self.files.last_step = self.last_step
        for step, path, size in self.changed(self.val_dir):
            lines = read_dump(path)
            if lines is None:
                continue
            rollouts = dump_to_rollouts(lines, self.eval_split, step, self.tokens, self.max_tokens)
            self.files.rollouts("eval", step, rollouts)
            self.files.eval_result(step, {self.eval_split: split_result(rollouts)})
            self.sizes[path] = size


def latest_checkpoint(files):
    """verl's newest saved step, from the tracker file it writes next to its `global_step_N` dirs."""
    tracker = files.path(VERL_DIR, "checkpoints", "latest_checkpointed_iteration.txt")
    if not os.path.exists(tracker):
        return None
    with open(tracker, encoding="utf-8") as f:
        step = int(f.read().strip())
    return step, os.path.join(VERL_DIR, "checkpoints", f"global_step_{step}")


def run_trainer(files, job, command, mapper):
    """Runs verl, beating and mapping while it runs; raises the contract's failure for how it ended."""
    tail = deque(maxlen=300)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)

    def pump():
        for line in process.stdout:
            sys.stdout.write(line)
            tail.append(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    max_steps = job["budget"].get("maxSteps") or 1
    try:
        while True:
            mapper.sync()
            files.heartbeat(mapper.last_step, "rollout" if job["kind"] == "train" else "eval", mapper.last_step / max_steps)
            try:
                process.wait(timeout=POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                continue
    except evo_job.Preempted:
        os.killpg(process.pid, 15)
        process.wait()
        mapper.sync()
        raise
    reader.join()
    mapper.sync()
    if process.returncode == 0:
        return
    text = "".join(tail)
    message = f"verl exited with {process.returncode}: {text[-2000:]}"
    if any(marker in text for marker in CONFIG_ERROR_MARKERS):
        raise ConfigError(message)
    if any(marker in text for marker in OOM_MARKERS):
        raise MemoryError(message)
    raise evo_job.JobFailure(message)


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        print("usage: evo_verl_job.py job.json -- <verl command>", file=sys.stderr)
        sys.exit(2)
    job_file, command = argv[1], argv[3:]
    with open(job_file, encoding="utf-8") as f:
        written = json.load(f)
    output_dir, attempt = written["outputDir"], written.get("attempt")

    def body(files):
        job = evo_job.read_job(job_file)
        files.heartbeat(0, "setup", 0.0)
        mapper = DumpMapper(files, job, command)
        run_trainer(files, job, command, mapper)
        if job["kind"] == "train":
            saved = latest_checkpoint(files)
            if saved is None:
                raise ConfigError("verl saved no checkpoint: a train job needs trainer.save_freq > 0")
            files.checkpoint(*saved)
        files.heartbeat(mapper.last_step, "teardown", 1.0)

    evo_job.run_job(output_dir, body, attempt)


if __name__ == "__main__":
    main(sys.argv)
