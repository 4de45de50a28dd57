"""Builds the tiny arithmetic model the learning benchmark trains: task data, a tokenizer trained here,
and a small Qwen2 pretrained by supervised fine-tuning on worked solutions. No Hub, no download.

    python build.py OUT_DIR [--size full|smoke] [--seed N]

OUT_DIR gets:
  model/                    the SFT model and its tokenizer (save_pretrained), the run's basePolicy
  train.jsonl               RL training tasks (prompt, answer, task_id), disjoint from the SFT data
  promotion.jsonl           the promotion split
  sealed.jsonl              the sealed split
  build.json                the build's key, its parameters and the SFT model's measured accuracy

A build whose key (this file's bytes and the parameters) matches OUT_DIR/build.json is kept as it is.

The task: left-to-right sums and differences of 3-5 numbers below 50, written as one step a line and a
final `Answer:` line. The SFT budget is sized so that the model gets about a third of the held-out
tasks right: it has learned the format and most single steps but still slips on carries, stops early,
runs past its token limit or repeats a step, which are the failures RL and the detectors work on.
"""

import argparse
import hashlib
import json
import os
import random
import sys
import time

SIZES = {
    # hidden, layers, heads, SFT steps, SFT examples, RL/eval task counts
    "full": {"hidden": 128, "layers": 4, "heads": 4, "sft_steps": 1400, "sft_examples": 20000, "train": 2000, "promotion": 64, "sealed": 200},
    "smoke": {"hidden": 32, "layers": 2, "heads": 2, "sft_steps": 40, "sft_examples": 2000, "train": 64, "promotion": 8, "sealed": 8},
}
MAX_OPERAND = 50
BATCH = 32
LR = 3e-3


def make_task(rng):
    """One expression with its worked solution: the running total after each operation, one a line."""
    terms = rng.randint(3, 5)
    total = rng.randint(1, MAX_OPERAND - 1)
    expression, steps = str(total), []
    for _ in range(terms - 1):
        operand = rng.randint(1, MAX_OPERAND - 1)
        # Differences that stay at or above zero keep every intermediate a plain number.
        op = "-" if total >= operand and rng.random() < 0.5 else "+"
        new_total = total - operand if op == "-" else total + operand
        steps.append(f"{total}{op}{operand}={new_total}")
        expression += f"{op}{operand}"
        total = new_total
    prompt = f"Q: {expression}=?\n"
    solution = "\n".join(steps) + f"\nAnswer: {total}"
    return prompt, solution, str(total)


def split_tasks(seed, size):
    """SFT examples and the three task splits, disjoint by prompt: no evaluated prompt was trained on."""
    rng = random.Random(seed)
    seen, sft, splits = set(), [], {"train": [], "promotion": [], "sealed": []}
    wanted = [("sealed", size["sealed"]), ("promotion", size["promotion"]), ("train", size["train"])]
    for name, count in wanted:
        while len(splits[name]) < count:
            prompt, _, answer = make_task(rng)
            if prompt in seen:
                continue
            seen.add(prompt)
            splits[name].append({"task_id": f"{name}-{len(splits[name])}", "prompt": prompt, "answer": answer})
    while len(sft) < size["sft_examples"]:
        prompt, solution, _ = make_task(rng)
        if prompt not in seen:
            sft.append((prompt, solution))
    return sft, splits


def build_tokenizer(texts):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    # Digits split one by one: a merged "37" token would hide the carries the model has to learn.
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)])
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=128, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>", pad_token="<|endoftext|>")


def build_model(tokenizer, size, seed):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=size["hidden"],
        intermediate_size=size["hidden"] * 3,
        num_hidden_layers=size["layers"],
        num_attention_heads=size["heads"],
        num_key_value_heads=size["heads"],
        max_position_embeddings=256,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=True,
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def sft(model, tokenizer, examples, size, seed):
    """Next-token loss on the solution only (the prompt is given), AdamW with a linear warm-up and decay."""
    import torch

    rng = random.Random(seed + 1)
    eos = tokenizer.eos_token_id
    encoded = []
    for prompt, solution in examples:
        p = tokenizer(prompt)["input_ids"]
        s = tokenizer(solution)["input_ids"] + [eos]
        encoded.append((p + s, [-100] * len(p) + s))
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    steps = size["sft_steps"]
    warmup = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda i: min((i + 1) / warmup, max(0.0, (steps - i) / (steps - warmup))))
    model.train()
    started = time.time()
    for step in range(steps):
        batch = rng.sample(encoded, BATCH)
        width = max(len(ids) for ids, _ in batch)
        ids = torch.tensor([x + [eos] * (width - len(x)) for x, _ in batch])
        labels = torch.tensor([y + [-100] * (width - len(y)) for _, y in batch])
        mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x, _ in batch])
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        if step % 100 == 0 or step == steps - 1:
            print(f"sft step {step + 1}/{steps} loss {loss.item():.3f} ({time.time() - started:.0f} s)", file=sys.stderr, flush=True)
    model.eval()


def accuracy(model, tokenizer, tasks, max_new_tokens=64):
    """Greedy accuracy on tasks, with the share of answers cut off at the token limit: a check of the
    build, not the product's evaluation (the run's sealed evaluation samples under its locked settings)."""
    import torch

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "packages", "adapters", "src", "verl"))
    import reward_wrapper

    right = cut = 0
    for task in tasks:
        encoded = tokenizer(task["prompt"], return_tensors="pt")
        with torch.no_grad():
            out = model.generate(**encoded, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id)
        ids = out[0, encoded["input_ids"].shape[1]:].tolist()
        cut += tokenizer.eos_token_id not in ids
        text = tokenizer.decode(ids, skip_special_tokens=True)
        right += reward_wrapper.answers_equal(reward_wrapper.final_answer(text), task["answer"])
    return right / len(tasks), cut / len(tasks)


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with open(__file__, "rb") as f:
        key = hashlib.sha256(f.read() + f"{args.size}/{args.seed}".encode()).hexdigest()[:16]
    manifest = os.path.join(args.out_dir, "build.json")
    if os.path.exists(manifest):
        with open(manifest, encoding="utf-8") as f:
            if json.load(f).get("key") == key:
                print(f"kept: {args.out_dir} (build {key})", file=sys.stderr)
                return

    import torch

    # One thread a build: the result must not depend on how many cores the machine has.
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    size = SIZES[args.size]
    sft_examples, splits = split_tasks(args.seed, size)
    tokenizer = build_tokenizer(p + s for p, s in sft_examples)
    model = build_model(tokenizer, size, args.seed)
    params = sum(p.numel() for p in model.parameters())
    print(f"tiny model: {params / 1e6:.2f} M parameters, vocabulary {len(tokenizer)}", file=sys.stderr)
    sft(model, tokenizer, sft_examples, size, args.seed)
    sealed_accuracy, sealed_cut = accuracy(model, tokenizer, splits["sealed"])

    os.makedirs(args.out_dir, exist_ok=True)
    model.save_pretrained(os.path.join(args.out_dir, "model"))
    tokenizer.save_pretrained(os.path.join(args.out_dir, "model"))
    for name, rows in splits.items():
        with open(os.path.join(args.out_dir, f"{name}.jsonl"), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(row) + "\n" for row in rows)
    result = {"key": key, "size": args.size, "seed": args.seed, "parameters": params, "sealedGreedyAccuracy": sealed_accuracy, "sealedGreedyCutOff": sealed_cut}
    with open(manifest, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
