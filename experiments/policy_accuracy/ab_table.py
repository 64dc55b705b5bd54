#!/usr/bin/env python3
"""Table of experiments/policy_accuracy/ab_campaigns.sh (or ab_training.sh, whose "seed" N is its N-th source
folder): build A's policy against build B's, per seed and summed up.

usage: ab_table.py OUT_DIR
Reads OUT_DIR/b_seed<N>/<workload>_evaluate.json (B's policy is "crmap policy (hook)", A's "compared policy
(hook)", measured in the same interleaved runs against one oracle per held-out shape). Per workload and seed:
each policy's CTMA (share of held-out shapes within 5% of the oracle), geo-mean oracle ratio and worst shape, B's
geo-mean over A's, and the static plan and nearest tuned shape of B's database for context. Per workload over
seeds: mean CTMA, the geometric mean of the geo-means, the worst shape of all, B/A and the seeds where B's
geo-mean was ahead, level (within 1%) or behind; then the same B/A and counts over every workload-seed pair.
"""
import glob
import os
import re
import sys

from ratios import geometric_mean
from result_files import load_json_or_exit, load_text_or_exit

POLICY_B, POLICY_A = "crmap policy (hook)", "compared policy (hook)"


def cell(method):
    return f"{100 * method['ctma']:.0f}%, {method['geo_mean_oracle_ratio']:.3f}, {method['worst']:.3f}"


def tally(ratios):
    """"ahead / level / behind": B/A above 1.01, within 1%, below 0.99."""
    ahead = sum(r > 1.01 for r in ratios)
    behind = sum(r < 0.99 for r in ratios)
    return f"{ahead} / {len(ratios) - ahead - behind} / {behind}"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ab_table.py OUT_DIR")
    out = sys.argv[1]
    runs = {}  # workload -> [(seed, methods by name)]
    seed_dirs = sorted((int(match.group(1)), path) for path in glob.glob(os.path.join(out, "b_seed*"))
                       if (match := re.search(r"b_seed(\d+)$", path)))
    if not seed_dirs:
        sys.exit(f"no b_seed<N> folder in {out}: run ab_campaigns.sh or ab_training.sh first")
    host = ""
    for seed, seed_dir in seed_dirs:
        version = os.path.join(seed_dir, "version.txt")
        if not host and os.path.exists(version):
            host = next((line.strip() for line in load_text_or_exit(version) if line.startswith("host:")), "")
        for path in sorted(glob.glob(os.path.join(seed_dir, "*_evaluate.json"))):
            workload = os.path.basename(path)[: -len("_evaluate.json")]
            report = load_json_or_exit(path)
            methods = {m["method"]: m for m in report["methods"]}
            if POLICY_A not in methods:
                sys.exit(f"{path} holds no '{POLICY_A}': was it evaluated by ab_campaigns.sh or ab_training.sh?")
            runs.setdefault(workload, []).append((seed, methods))
    print(f"{host}\n")
    print("Per seed: CTMA, geo-mean, worst shape (A and B measured in the same interleaved runs)\n")
    print("| workload | seed | policy A | policy B | B/A geo-mean | static plan | nearest tuned |")
    print("|---|---|---|---|---|---|---|")
    for workload in sorted(runs):
        for seed, m in runs[workload]:
            ratio = m[POLICY_B]["geo_mean_oracle_ratio"] / max(m[POLICY_A]["geo_mean_oracle_ratio"], 1e-6)
            print(f"| {workload} | {seed} | {cell(m[POLICY_A])} | {cell(m[POLICY_B])} | {ratio:.3f} | "
                  f"{cell(m['static plan'])} | {cell(m['nearest tuned shape'])} |")
    print("\nOver seeds: mean CTMA, geometric mean of the geo-means, worst shape of all seeds\n")
    print("| workload | seeds | policy A | policy B | B/A geo-mean | B ahead / level (1%) / behind |")
    print("|---|---|---|---|---|---|")
    all_ratios = []
    for workload in sorted(runs):
        seeds = runs[workload]
        summary = {}
        for name in (POLICY_A, POLICY_B):
            ctma = sum(m[name]["ctma"] for _, m in seeds) / len(seeds)
            geo_mean = geometric_mean([m[name]["geo_mean_oracle_ratio"] for _, m in seeds])
            worst = min(m[name]["worst"] for _, m in seeds)
            summary[name] = (ctma, geo_mean, worst)
        ratios = [m[POLICY_B]["geo_mean_oracle_ratio"] / max(m[POLICY_A]["geo_mean_oracle_ratio"], 1e-6)
                  for _, m in seeds]
        all_ratios += ratios
        a, b = summary[POLICY_A], summary[POLICY_B]
        print(f"| {workload} | {len(seeds)} | {100 * a[0]:.0f}%, {a[1]:.3f}, {a[2]:.3f} | "
              f"{100 * b[0]:.0f}%, {b[1]:.3f}, {b[2]:.3f} | {geometric_mean(ratios):.3f} | {tally(ratios)} |")
    print(f"\nOver all {len(all_ratios)} workload-seed pairs: B/A geo-mean {geometric_mean(all_ratios):.3f}; "
          f"B ahead / level (1%) / behind: {tally(all_ratios)}")


if __name__ == "__main__":
    main()
