"""How long `load_rules` takes to answer hostile rule files near the 1 MB limit (issue 19).

Each file is written to a temporary folder and loaded `--rounds` times in this process; the
best time is printed with the first line of the answer. Every case must answer well under a
second on this project's 2-core machine, whatever the file holds.

    .venv/bin/python bench/bench_loader.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from yz.rules import RulesError, load_rules

HEAD = "name: hostile\ncategories:\n  - {key: chance, pattern: any, score: sum_all}\n"


def cases() -> dict[str, str]:
    """Rule files of about 0.4 to 1 MB, each hostile in its own way."""
    box = "  - {key: b%d, pattern: {kind: face, face: 99}, score: face_total, bogus: 1}\n"
    return {
        "40,000 unknown top-level keys (389 KB)": HEAD + "".join(
            f"k{i:05d}: 1\n" for i in range(40_000)),
        "unknown keys up to 1 MB": HEAD + "".join(
            f"key_{i:07d}: 1\n" for i in range(75_000)),
        "one box with 40,000 unknown fields": "name: x\ncategories:\n  - key: c\n"
                                              "    pattern: any\n    score: sum_all\n" + "".join(
            f"    f{i:05d}: 1\n" for i in range(40_000)),
        "a list of 30,000 boxes": "name: x\ncategories:\n" + "".join(
            box % i for i in range(30_000)),
        "extends with 40,000 unknown keys": "extends: official-free-joker\n" + "".join(
            f"k{i:05d}: 1\n" for i in range(40_000)),
        "full_value with 90,000 keys": "extends: official-free-joker\njoker:\n  mode: free\n"
                                       "  full_value: [" + ", ".join(
            f"k{i}" for i in range(90_000)) + "]\n",
        "20 boxes, each with errors": "name: x\nupper_bonus: {threshold: 5000, amount: 1}\n"
                                      "categories:\n" + "".join(box % i for i in range(20)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name, text in cases().items():
            path = Path(folder) / "rules.yaml"
            path.write_text(text)
            best = float("inf")
            answer = ""
            for _ in range(args.rounds):
                start = time.perf_counter()
                try:
                    load_rules(str(path))
                    answer = "accepted"
                except RulesError as exc:
                    answer = str(exc).splitlines()[0][:110]
                best = min(best, time.perf_counter() - start)
            print(f"{name:42} {len(text) / 1e3:7.0f} KB  {best * 1e3:7.1f} ms  {answer}")


if __name__ == "__main__":
    main()
