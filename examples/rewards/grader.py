"""A grader for a run's locked evaluation (evaluation.<split>.grader: examples/rewards/grader.py:grade),
runnable on its own:

    python3 examples/rewards/grader.py

A grader scores one sample at a time: `grade(completion, answer)` with the completion's text and the
task's `answer` (a string); it returns a number (1.0 passed, 0.0 failed; a sample counts as passed
at 0.5 or more). It never returns None: every evaluation sample gets a score.
"""


def grade(completion, answer):
    words = [w.strip(".,") for w in completion.split()]
    return 1.0 if words and words[-1] == answer.strip() else 0.0


if __name__ == "__main__":
    for completion in [" 21", "So the total is 21.", "22"]:
        print(repr(completion), grade(completion, "21"))
