"""The job contract evo.job/v1 for Python trainer wrappers (shipped into every job's directory).

Writes what packages/contract reads: heartbeat.json, metrics.jsonl, rollouts/{train,eval}/step_N.jsonl,
eval/step_N.json, checkpoints/latest.json and, last, status.json. `run_job` turns how the wrapped
trainer ended into the contract's exit classes: 0 ok, 2 configuration error and 3 data/reward error
(both never retried), 75 preempted (SIGTERM), 1 crash or out of memory.
"""

import json
import math
import os
import signal
import sys
import traceback
from datetime import datetime, timezone


class JobFailure(Exception):
    """A failure whose class the wrapper knows; the message reaches status.json."""

    failure_class = "crash"
    exit_code = 1


class ConfigError(JobFailure):
    """The trainer refused its configuration: running it again fails the same way."""

    failure_class = "config_error"
    exit_code = 2


class DataError(JobFailure):
    """The data or a reward function is broken: running it again fails the same way."""

    failure_class = "data_error"
    exit_code = 3


class Preempted(JobFailure):
    """The job was asked to stop (SIGTERM: a node drain, a cancelled pod); it may resume later."""

    failure_class = "preempted"
    exit_code = 75


def now():
    return datetime.now(timezone.utc).isoformat()


def _finite(value):
    """JSON cannot hold NaN or ±Infinity; the contract writes them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _dumps(value):
    return json.dumps(_finite(value), ensure_ascii=False, allow_nan=False)


class JobFiles:
    """The contract's files under one output dir. Whole files are written atomically (rename)."""

    def __init__(self, output_dir, attempt=None):
        self.output_dir = output_dir
        self.last_step = None
        # job.json's attempt, stamped on rollout and metrics lines: a retry's lines of a step replace
        # the earlier attempt's in the control plane.
        self.attempt = attempt
        # This attempt's start on the job's own clock; every beat carries it, and GPU-seconds are
        # charged from it to the beat's time.
        self.started_at = now()
        self._beat = (0, "setup", 0.0)
        os.makedirs(output_dir, exist_ok=True)

    def _stamped(self, row):
        return row if self.attempt is None else {**row, "attempt": int(self.attempt)}

    def path(self, *parts):
        return os.path.join(self.output_dir, *parts)

    def _write(self, rel, text):
        target = self.path(rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        tmp = f"{target}.tmp-{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)

    def heartbeat(self, step, phase, progress, message=None):
        self._beat = (step, phase, progress)
        beat = {"step": int(step), "time": now(), "startedAt": self.started_at, "phase": phase, "progress": min(1.0, max(0.0, float(progress)))}
        if message:
            beat["message"] = message
        self._write("heartbeat.json", _dumps(beat))

    def last_beat(self):
        """The attempt's end on its own clock: the last beat's step, now, so its whole run is charged."""
        step, _phase, progress = self._beat
        self.heartbeat(step, "teardown", progress)

    def metrics(self, step, data):
        numbers = {k: v for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if not numbers:
            return
        with open(self.path("metrics.jsonl"), "a", encoding="utf-8") as f:
            f.write(_dumps(self._stamped({"step": int(step), "data": numbers})) + "\n")

    def rollouts(self, directory, step, rows):
        """One step's rollouts, written whole: a re-run of the step replaces them, never duplicates."""
        self._write(os.path.join("rollouts", directory, f"step_{int(step)}.jsonl"), "".join(_dumps(self._stamped(r)) + "\n" for r in rows))

    def append_rollouts(self, directory, step, rows):
        """Adds rollouts to a step's file in one write of whole lines: a trainer that generates more
        than once per step (gradient accumulation) keeps every generation, each with its own uids."""
        target = self.path("rollouts", directory, f"step_{int(step)}.jsonl")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        data = "".join(_dumps(self._stamped(r)) + "\n" for r in rows).encode("utf-8")
        # Appended as bytes with O_APPEND: a reader tailing the file takes only lines already ended.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
        finally:
            os.close(fd)

    def clear(self, *parts):
        """Removes what an earlier attempt of a job that starts over wrote (a file or a folder)."""
        import shutil

        target = self.path(*parts)
        if os.path.isdir(target):
            shutil.rmtree(target)
        elif os.path.exists(target):
            os.remove(target)

    def eval_result(self, step, splits):
        self._write(os.path.join("eval", f"step_{int(step)}.json"), _dumps({"step": int(step), "splits": splits}))

    def checkpoint(self, step, path):
        """`path` relative to the output dir, so the dir can move as a whole."""
        self._write(os.path.join("checkpoints", "latest.json"), _dumps({"step": int(step), "path": path, "createdAt": now()}))

    def status(self, state, exit_code=None, failure_class=None, message=None):
        status = {"state": state, "exitCode": exit_code, "lastStep": self.last_step}
        if failure_class:
            status["failureClass"] = failure_class
        if message:
            status["message"] = message[-4000:]
        self._write("status.json", _dumps(status))


def read_job(path):
    with open(path, encoding="utf-8") as f:
        job = json.load(f)
    if job.get("contract") != "evo.job/v1":
        raise ConfigError(f"{path} is not an evo.job/v1 job (contract: {job.get('contract')!r})")
    return job


def _is_out_of_memory(error):
    name = type(error).__name__
    return name in ("OutOfMemoryError", "MemoryError") or "CUDA out of memory" in str(error)


def run_job(output_dir, body, attempt=None):
    """Runs `body(files)` and exits with the contract's code, a last heartbeat and status.json written last."""
    files = JobFiles(output_dir, attempt)

    def on_sigterm(signum, frame):
        raise Preempted("stopped by SIGTERM")

    signal.signal(signal.SIGTERM, on_sigterm)
    files.status("running")
    try:
        body(files)
    except JobFailure as failure:
        files.last_beat()
        files.status("failed", failure.exit_code, failure.failure_class, str(failure))
        print(f"evo: {failure.failure_class}: {failure}", file=sys.stderr)
        sys.exit(failure.exit_code)
    except BaseException as error:  # noqa: BLE001 - every way out must leave a status behind
        failure_class = "oom" if _is_out_of_memory(error) else "crash"
        traceback.print_exc()
        files.last_beat()
        files.status("failed", 1, failure_class, f"{type(error).__name__}: {error}")
        sys.exit(1)
    files.last_beat()
    files.status("succeeded", 0)
    sys.exit(0)
