"""TRL reward functions for EvoTrainer's TRL job (trainer.rewardFunctions), runnable on their own:

    python3 examples/rewards/reward_functions.py

A reward function scores a whole generation batch at once, as TRL calls it: keyword arguments
`completions` (list of str), `answer` (the dataset's answer column, one per completion), `prompts`,
`task_id` and any other dataset column; it returns one float per completion, or None for a
completion it does not apply to (TRL reads None as NaN and leaves it out of the weighted sum).
"""


def brevity(completions, answer, **columns):
    """1.0 for a completion of at most 20 words, falling to 0 at 200 words."""
    return [max(0.0, min(1.0, (200 - len(c.split())) / 180)) for c in completions]


def integer_answer(completions, answer, **columns):
    """1.0 when the completion's last number equals the answer; None where the answer is not an integer."""
    scores = []
    for completion, expected in zip(completions, answer):
        if not expected.lstrip("-").isdigit():
            scores.append(None)
            continue
        numbers = [w.strip(".,") for w in completion.split() if w.strip(".,").lstrip("-").isdigit()]
        scores.append(1.0 if numbers and numbers[-1] == expected else 0.0)
    return scores


if __name__ == "__main__":
    completions = [" 21", "The sum is 21.", "I do not know"]
    print("brevity:", brevity(completions=completions, answer=["21"] * 3))
    print("integer_answer:", integer_answer(completions=completions, answer=["21", "21", "x"]))
