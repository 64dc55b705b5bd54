#!/usr/bin/env python3
"""Reads stored evaluations: the policy against the nearest tuned shape, split by whether the two tuned shapes
nearest each held-out shape share a label. Measures nothing.

usage: neighbour_agreement.py [DIR]   (default: results/budgeted beside this script)
Walks DIR for every `<w>_evaluate.json` whose folder has `<w>_train.json` with `tuned_shapes` (train reports
since they list each tuned shape's label). For each held-out shape, the two tuned shapes nearest it by squared log2
distance over its dims (tuner/nearest_shape.h) either share a label or not; prints, for each group and for all,
the held-out shapes, the share within 5% of the oracle (confirmed oracle_ratio >= 0.95) and the geometric mean of
the oracle ratio for the policy's pick and the nearest tuned shape's, and what "the nearest tuned shape's config
where the two agree, else the policy's" would have scored. The picks are those of the builds that ran each
evaluation; a rule that picks a config no method picked cannot be read off this way (incumbent_rule_check.py
measures it instead).
"""
import glob
import json
import os
import sys

from ratios import geometric_mean
from shape_rules import log2_distance


def summary(name, ratios):
    if not ratios:
        return f"| {name} | 0 | | |"
    within = sum(r >= 0.95 for r in ratios) / len(ratios)
    geo = geometric_mean(ratios)
    return f"| {name} | {len(ratios)} | {within:.3f} | {geo:.4f} |"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                               "results", "budgeted")
    if not os.path.isdir(root):
        sys.exit(f"{root} is not a folder\n" + __doc__)
    rows = []  # (the two nearest agree, policy ratio, nearest ratio)
    for evaluation in sorted(glob.glob(os.path.join(root, "**", "*_evaluate.json"), recursive=True)):
        train = evaluation[: -len("_evaluate.json")] + "_train.json"
        if not os.path.exists(train):
            continue
        with open(train) as f:
            tuned = json.load(f).get("tuned_shapes")
        if not tuned or len(tuned) < 2:
            continue
        with open(evaluation) as f:
            shapes = json.load(f)["shapes"]
        for shape in shapes:
            if "crmap policy (hook)" not in shape or "nearest tuned shape" not in shape:
                continue
            # stable: the first of equals first
            nearest = sorted(tuned, key=lambda entry: log2_distance(entry["dims"], shape["dims"]))
            rows.append((nearest[0]["label"] == nearest[1]["label"], shape["crmap policy (hook)"]["oracle_ratio"],
                         shape["nearest tuned shape"]["oracle_ratio"]))
    if not rows:
        sys.exit(f"no evaluation under {root} has a train report listing tuned_shapes")
    print("| held-out shapes, method | shapes | within 5% of the oracle | geo-mean |")
    print("|---|---|---|---|")
    for title, keep in (("two nearest agree", lambda a: a), ("two nearest differ", lambda a: not a),
                        ("all", lambda a: True)):
        group = [r for r in rows if keep(r[0])]
        print(summary(f"{title}: policy", [p for _, p, _ in group]))
        print(summary(f"{title}: nearest tuned shape", [n for _, _, n in group]))
    print(summary("all: nearest where the two agree, else policy", [n if a else p for a, p, n in rows]))


if __name__ == "__main__":
    main()
