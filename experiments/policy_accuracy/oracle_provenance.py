#!/usr/bin/env python3
"""Reads stored evaluations: where did the oracle of each held-out shape stand in the campaign that trained the
policy? Measures nothing.

usage: oracle_provenance.py [DIR]   (default: results/budgeted beside this script)
Walks DIR for every `<w>_evaluate.json` with the campaign's database `<w>.jsonl` beside it and, at each held-out
shape the evaluation confirmed, puts the oracle config in one of three groups: the best-recorded config (best
median of its ok records) of some tuned shape of the campaign; measured at some tuned shape but never the
best-recorded; never measured. (A "best-recorded" config is what one lucky record can make best; the policy's
table holds noise-aware labels, which tie within the record noise — label_headroom.py reads those.)
Prints the counts for the shapes where the policy's pick was within 5% of the oracle and where it was not. A miss
whose oracle was best-recorded elsewhere is one a better choice could have avoided; one whose oracle was
never measured only a search that finds it could (label_headroom.py measures the first kind directly). Then the
same shapes by how many knobs the oracle config differs in from the nearest of the best-recorded configs (0: it is
one; knob by knob over the config strings, whose runtime knobs campaigns leave at their defaults).
"""
import collections
import glob
import json
import os
import statistics
import sys

GROUPS = ("a tuned shape's best-recorded config", "measured, never best-recorded", "never measured")


def record_ratios(path):
    """Per shape of a campaign database (its dims as sorted items), per config: the ratio to the anchor (the
    config's latency over the default's, median of the record's rounds) of each ok record."""
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            if record.get("status") == "ok" and "ratio_to_anchor" in record:
                shape = tuple(sorted(record["dims"].items()))
                ratios[shape][record["config"]].append(record["ratio_to_anchor"]["median"])
    return ratios


def campaign_configs(path):
    """The best-recorded config of each of the database's shapes and every config it measured."""
    ratios = record_ratios(path)
    labels = {min(configs, key=lambda c: statistics.median(configs[c])) for configs in ratios.values()}
    measured = {c for configs in ratios.values() for c in configs}
    return labels, measured


def knobs_apart(a, b):
    """How many knobs two config strings (knob=value;...) set differently."""
    a, b = (dict(part.split("=", 1) for part in c.split(";")) for c in (a, b))
    return sum(a.get(k) != b.get(k) for k in set(a) | set(b))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                               "results", "budgeted")
    if not os.path.isdir(root):
        sys.exit(f"{root} is not a folder\n" + __doc__)
    counts, apart = collections.Counter(), collections.Counter()
    for evaluation in sorted(glob.glob(os.path.join(root, "**", "*_evaluate.json"), recursive=True)):
        database = evaluation[: -len("_evaluate.json")] + ".jsonl"
        if not os.path.exists(database):
            continue
        labels, measured = campaign_configs(database)
        if not labels:
            continue  # no ok record: nothing to place the oracle against
        with open(evaluation) as f:
            shapes = json.load(f)["shapes"]
        for shape in shapes:
            pick, oracle = shape.get("crmap policy (hook)"), shape.get("oracle_config")
            if not pick or not oracle or not shape.get("confirmed"):
                continue
            group = GROUPS[0] if oracle in labels else GROUPS[1] if oracle in measured else GROUPS[2]
            counts[(pick["oracle_ratio"] >= 0.95, group)] += 1
            knobs = min(knobs_apart(oracle, label) for label in labels)
            apart[(pick["oracle_ratio"] >= 0.95, min(knobs, 3))] += 1
    if not counts:
        sys.exit(f"no confirmed evaluation under {root} has its campaign's database beside it")
    print("| the oracle config in the campaign | policy within 5% | policy missed |")
    print("|---|---|---|")
    for group in GROUPS:
        print(f"| {group} | {counts[(True, group)]} | {counts[(False, group)]} |")
    print(f"| all | {sum(v for (hit, _), v in counts.items() if hit)} | "
          f"{sum(v for (hit, _), v in counts.items() if not hit)} |")
    print("\n| knobs from the oracle to the nearest best-recorded config | policy within 5% | policy missed |")
    print("|---|---|---|")
    for knobs in range(4):
        print(f"| {knobs if knobs < 3 else '3 or more'} | {apart[(True, knobs)]} | {apart[(False, knobs)]} |")


if __name__ == "__main__":
    main()
