#!/usr/bin/env python3
"""Scores rules that choose among a policy's labels on label_headroom.py's measurements. Measures nothing.

usage: label_rules.py FILE
FILE is what `label_headroom.py --out FILE` wrote: per held-out shape, every distinct label of the policy's table
and the evaluation's picks measured beside the oracle. Each line names its result folder (as label_headroom.py was
given it, relative to experiments/policy_accuracy), whose `<w>.jsonl` holds the campaign's records. Prints, for
each rule, the shapes within 5% of the oracle and the geometric mean of the oracle ratios: the policy, the static
plan and the nearest tuned shape (their measured picks), the best label at each shape (an upper bound), and
"records, k nearest": the label whose recorded log speedup, the median of its records at each of the k tuned
shapes nearest the held-out shape (squared log2 distance) weighted by 1 / (0.001 + its square root), is highest (a label
with no record at those shapes is never chosen unless none has one).
"""
import collections
import json
import math
import os
import statistics
import sys

from oracle_provenance import record_ratios
from ratios import geometric_mean
from shape_rules import log2_distance

HERE = os.path.dirname(os.path.abspath(__file__))
_records_by_campaign = {}  # (folder, workload) -> records(): each database read once


def records(folder, workload):
    """Per tuned shape (sorted dims items), per config: the log speedups of its ok records."""
    key = (folder, workload)
    if key not in _records_by_campaign:
        path = os.path.join(HERE, folder, workload + ".jsonl")
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: the campaign's database must lie in the folder label_headroom.py measured")
        by_shape = {shape: {config: [-math.log(r) for r in ratios] for config, ratios in configs.items()}
                    for shape, configs in record_ratios(path).items()}
        _records_by_campaign[key] = by_shape
    return _records_by_campaign[key]


def distance(shape, dims):
    """From a tuned shape (sorted dims items) to the asked dims (shape_rules.log2_distance)."""
    return log2_distance(dict(shape), dims)


def by_records(row, k):
    shapes = records(row["folder"], row["workload"])
    nearest = sorted(shapes, key=lambda s: distance(s, row["dims"]))[:k]

    def estimate(config):
        total = weight = 0.0
        for shape in nearest:
            if config in shapes[shape]:
                w = 1 / (0.001 + math.sqrt(distance(shape, row["dims"])))
                total += w * statistics.median(shapes[shape][config])
                weight += w
        return total / weight if weight else -math.inf

    return max(row["labels"], key=estimate)


def main():
    if len(sys.argv) != 2 or not os.path.isfile(sys.argv[1]):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if not rows:
        sys.exit(f"{sys.argv[1]} has no shapes")
    scores = collections.defaultdict(list)
    for row in rows:
        ratio = lambda config: row["ratios"][config][0]
        for method in ("crmap policy (hook)", "static plan", "nearest tuned shape"):
            scores[method].append(ratio(row["picks"][method]))
        scores["best label (upper bound)"].append(max(ratio(c) for c in row["labels"]))
        for k in (2, 3):
            scores[f"records, {k} nearest"].append(ratio(by_records(row, k)))
    print("| rule | shapes | within 5% of the oracle | geo-mean |")
    print("|---|---|---|---|")
    for rule, ratios in scores.items():
        geo = geometric_mean(ratios)
        print(f"| {rule} | {len(ratios)} | {sum(r >= 0.95 for r in ratios)} | {geo:.3f} |")


if __name__ == "__main__":
    main()
