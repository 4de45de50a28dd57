"""EvoTrainer's reward for verl, generated for one job by reward-wrapper.ts: do not edit.

verl loads it through reward.custom_reward_function.{path,name} and calls
compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs) once per response.
The score is the recipe's weighted sum of its named reward components. Each call also appends the
components (and the non-numeric values beside them) to a JSONL side file, because verl's v1
trainer drops reward extras from its training dumps; the importer joins them back by response.
"""

import asyncio
import hashlib
import importlib.util
import inspect
import json
import math
import os
import re

# The job's settings: components and weights, which of them this module computes, the user's
# reward module (if any) and the side file. Replaced by reward-wrapper.ts.
CONFIG = json.loads("{}")  # evo:config

# ---- Built-in components: ports of packages/core/src/text/final-answer.ts, so the score a
# ---- branch trains on agrees with what the harness reads when it labels the same response.

_LINE_ANSWERS = [
    re.compile(r"^[ \t]*####[ \t]*(.+)$", re.MULTILINE),
    re.compile(r"^[ \t]*(?:A|Answer|Final Answer)[ \t]*:[ \t]*(.+)$", re.MULTILINE | re.IGNORECASE),
]
_SAID_ANSWER = re.compile(r"answer is[ \t:]*\$?([^\s$][^\n]*?)\$?[ \t]*(?:\.(?:\s|$)|\n|$)", re.IGNORECASE)
# A whole response that is one number: the completion of a prompt ending in "Answer:".
_BARE_NUMBER = re.compile(r"^\s*(-?\d[\d,]*(?:\.\d+)?(?:/\d+)?)\.?\s*$", re.ASCII)
_FRACTIONS = [
    re.compile(r"^(-?)\\d?frac\{(-?[\d.]+)\}\{(-?[\d.]+)\}$", re.ASCII),
    re.compile(r"^(-?)([\d.]+)/([\d.]+)$", re.ASCII),
]
_NUMBER = re.compile(r"^-?(\d+\.?\d*|\.\d+)(e-?\d+)?%?$", re.ASCII | re.IGNORECASE)
_PYTHON_BLOCK = re.compile(r"\x60{3}python\n[\s\S]*?\n\x60{3}")


def _last_boxed(text):
    at = text.rfind("\\boxed{")
    if at < 0:
        return None
    start = at + len("\\boxed{")
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            if depth == 0:
                return text[start:i]
            depth -= 1
    return None


def final_answer(text):
    """The final answer a response commits to (\\boxed{}, "#### n", "Answer: n", "the answer is n", a bare number), or ""."""
    boxed = _last_boxed(text)
    if boxed is not None:
        return boxed.strip()
    for pattern in _LINE_ANSWERS:
        last = None
        for match in pattern.finditer(text):
            last = match.group(1)
        if last is not None and last.strip() != "":
            return last.strip()
    said = None
    for match in _SAID_ANSWER.finditer(text):
        said = match.group(1)
    if said is not None:
        return said.strip()
    bare = _BARE_NUMBER.match(text)
    return bare.group(1) if bare else ""


def _normalise(s):
    s = s.strip()
    s = re.sub(r"^\\text\{(.*)\}$", r"\1", s)
    s = re.sub(r"\\[!,; ]|\\\$|[$\s]", "", s)
    s = re.sub(r"(\d),(?=\d{3}\b)", r"\1", s, flags=re.ASCII)
    return re.sub(r"\.$", "", s)


def _as_number(s):
    for pattern in _FRACTIONS:
        match = pattern.match(s)
        if match:
            try:
                value = float(match.group(2)) / float(match.group(3))
            except (ValueError, ZeroDivisionError):
                return None
            if not math.isfinite(value):
                return None
            return -value if match.group(1) == "-" else value
    if not _NUMBER.match(s):
        return None
    value = float(s[:-1] if s.endswith("%") else s)
    return value if math.isfinite(value) else None


def answers_equal(a, b):
    x, y = _normalise(a), _normalise(b)
    if x == "" or y == "":
        return False
    nx, ny = _as_number(x), _as_number(y)
    if nx is not None and ny is not None:
        return abs(nx - ny) <= 1e-9 * max(1.0, abs(nx), abs(ny))
    return x.lower() == y.lower()


def _math_correctness(solution_str, ground_truth, labels):
    answer = final_answer(solution_str)
    labels["pred"] = answer
    return 1.0 if answers_equal(answer, str(ground_truth)) else 0.0


def _math_format(solution_str, ground_truth, labels):
    return 0.0 if final_answer(solution_str) == "" else 1.0


def _code_format(solution_str, ground_truth, labels):
    return 1.0 if _PYTHON_BLOCK.search(solution_str) else 0.0


BUILTINS = {
    "math": {"correctness": _math_correctness, "format": _math_format},
    "code": {"format": _code_format},
}

# ---- The user's reward module, for components this module cannot compute (tests, judges).

_delegate = None


def _delegate_function():
    global _delegate
    if _delegate is None:
        spec = CONFIG["delegate"]
        module_spec = importlib.util.spec_from_file_location("evo_user_reward", spec["path"])
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot load the reward module {spec['path']}")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        _delegate = getattr(module, spec["name"])
    return _delegate


async def _awaited(awaitable):
    return await awaitable


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _append_side_line(line):
    text = json.dumps(line, ensure_ascii=False, default=str) + "\n"
    os.makedirs(os.path.dirname(CONFIG["sideFile"]), exist_ok=True)
    # One write() on an O_APPEND descriptor: lines from verl's concurrent reward workers do not interleave.
    fd = os.open(CONFIG["sideFile"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode("utf-8", "replace"))
    finally:
        os.close(fd)


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    extra_info = extra_info if isinstance(extra_info, dict) else {}
    components = {}
    labels = {}
    if CONFIG.get("delegate"):
        result = _delegate_function()(
            data_source=data_source, solution_str=solution_str, ground_truth=ground_truth, extra_info=extra_info, **kwargs
        )
        # verl runs a sync reward function in an executor thread, where no event loop is running.
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
        if isinstance(result, dict):
            for key, value in result.items():
                if key == "score":
                    continue
                if key in CONFIG["weights"] and (_is_number(value) or isinstance(value, bool)):
                    components[key] = float(value)
                else:
                    labels[key] = value
        else:
            # A bare number is what verl itself reads as accuracy.
            components["correctness"] = float(result)
    builtins = BUILTINS.get(CONFIG["domain"], {})
    for name in CONFIG["weights"]:
        if name not in components and name in builtins:
            components[name] = builtins[name](solution_str, ground_truth, labels)
    missing = [name for name in CONFIG["weights"] if name not in components]
    if missing:
        raise KeyError(
            f"reward components {missing} were not computed: EvoTrainer has no built-in for them in the "
            f"{CONFIG['domain']} domain and the reward module did not return them"
        )
    total = sum(CONFIG["weights"][name] * components[name] for name in CONFIG["weights"])
    line = {
        "key": hashlib.sha256(solution_str.encode("utf-8", "replace")).hexdigest()[:16],
        "gts": ground_truth,
        "data_source": data_source,
        "score": total,
        "components": components,
        "labels": labels,
    }
    for name in ("uid", "step"):
        if extra_info.get(name) is not None:
            line[name] = extra_info[name]
    _append_side_line(line)
    # The same keys on every call: verl keeps a reward extra only when every sample of the batch has it.
    return {"score": total, **components}
