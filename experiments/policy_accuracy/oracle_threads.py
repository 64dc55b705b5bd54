#!/usr/bin/env python3
"""Whether the oracle's thread count goes with the shape or with the run: per evaluation, the `threads` of each
held-out shape's oracle config, for the shapes whose DIM lies in [LO, HI].

usage: oracle_threads.py WORKLOAD DIM LO HI DIR [DIR ...]
Reads every file named exactly WORKLOAD_evaluate.json under each DIR (any depth). Prints one row per evaluation
that has such shapes (LO and HI included; a shape without an oracle config is skipped): the file, the shapes' DIM
values and the oracle's thread count at each (in the evaluation's order; "?" for a config without `threads`); then
how many evaluations gave one thread count at all of their shapes but at most one, over at least three shapes
("mostly N"), and how many were mixed. If the winner were a property of the shape, evaluations of the same shapes
would agree shape by shape. Exit 2, printing nothing on stdout, when the arguments are too few (the usage line),
a DIR is not a folder, LO/HI are not numbers, no evaluation has such shapes, or a file is malformed (named).
"""
import collections
import os
import sys

from miss_knobs import knobs
from result_files import files_under, load_json, read_structured


def oracle_threads(path, dim, lo, hi):
    """[(dim value, oracle threads)] of one evaluation's held-out shapes with lo <= dim <= hi."""
    rows = []
    for shape in load_json(path)["shapes"]:
        value = shape["dims"].get(dim)
        if value is not None and lo <= value <= hi and "oracle_config" in shape:
            rows.append((value, knobs(shape["oracle_config"]).get("threads", "?")))
    return rows


def verdict(threads):
    counts = collections.Counter(threads)
    top, count = counts.most_common(1)[0]
    return f"mostly {top}" if count >= len(threads) - 1 and len(threads) >= 3 else "mixed"


def main(argv):
    if len(argv) < 6:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    workload, dim = argv[1], argv[2]
    try:
        lo, hi = float(argv[3]), float(argv[4])
    except ValueError:
        print(f"LO and HI must be numbers, not '{argv[3]}' and '{argv[4]}'", file=sys.stderr)
        return 2
    verdicts = collections.Counter()
    rows = []
    for root in argv[5:]:
        if not os.path.isdir(root):
            print(f"{root} is not a folder", file=sys.stderr)
            return 2
        for path in files_under(root, lambda name: name == f"{workload}_evaluate.json"):
            try:
                shapes = read_structured(path, lambda p: oracle_threads(p, dim, lo, hi))
            except (OSError, ValueError) as error:  # each names the file
                print(error, file=sys.stderr)
                return 2
            if not shapes:
                continue
            threads = [t for _, t in shapes]
            verdicts[verdict(threads)] += 1
            values = " ".join(str(value) for value, _ in shapes)
            rows.append(f"| {path} | {values} | {' '.join(threads)} | {verdict(threads)} |")
    if not verdicts:
        print(f"no {workload}_evaluate.json with a held-out {dim} in [{argv[3]}, {argv[4]}]", file=sys.stderr)
        return 2
    print(f"| evaluation | {dim} | oracle threads | verdict |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    print("\n" + ", ".join(f"{name}: {count}" for name, count in sorted(verdicts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
