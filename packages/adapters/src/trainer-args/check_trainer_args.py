"""Which of a run's trainer arguments its trainer does not take, asked of the trainer's own Python.

    python check_trainer_args.py trl|verl < keys.json

Reads a JSON list of keys; prints {"unknown": [{"key", "suggestion"}], "importSeconds"}. TRL's keys
are GRPOConfig's dataclass fields (TrainingArguments' included); verl's are the Hydra paths of the
installed verl's generated trainer config (verl/trainer/config/_generated_ppo_trainer.yaml), where
a key prefixed "+" or "++" adds a new one and is not checked. Exits 3 when the trainer cannot be
imported, with the reason on stderr.
"""
import dataclasses
import difflib
import importlib.util
import json
import os
import sys
import time


def trl_fields():
    from trl import GRPOConfig

    names = {f.name for f in dataclasses.fields(GRPOConfig)}
    return lambda key: (key in names, closest(key, names))


def verl_config():
    spec = importlib.util.find_spec("verl")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("No module named 'verl'")
    path = os.path.join(list(spec.submodule_search_locations)[0], "trainer", "config", "_generated_ppo_trainer.yaml")
    import yaml

    with open(path, encoding="utf-8") as f:
        config = yaml.safe_load(f)

    def check(key):
        if key.startswith("+"):
            return True, None
        node, walked = config, []
        for part in key.lstrip("~").split("."):
            if not isinstance(node, dict) or part not in node:
                # The nearest name among the keys where the path left the config.
                near = closest(part, node.keys()) if isinstance(node, dict) else None
                return False, ".".join([*walked, near]) if near else None
            node, walked = node[part], [*walked, part]
        return True, None

    return check


def closest(key, names):
    match = difflib.get_close_matches(key, list(names), n=1, cutoff=0.75)
    return match[0] if match else None


def main():
    trainer = sys.argv[1]
    keys = json.load(sys.stdin)
    started = time.monotonic()
    try:
        check = trl_fields() if trainer == "trl" else verl_config()
    except (ImportError, OSError) as error:
        print(f"cannot import {trainer}: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(3)
    imported = time.monotonic() - started
    unknown = []
    for key in keys:
        known, suggestion = check(key)
        if not known:
            unknown.append({"key": key, "suggestion": suggestion})
    print(json.dumps({"unknown": unknown, "importSeconds": round(imported, 3)}))


if __name__ == "__main__":
    main()
