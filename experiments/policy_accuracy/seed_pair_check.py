#!/usr/bin/env python3
"""How much of a policy's answer is the trainer's seed: one database trained twice, measured where the two differ.

usage: seed_pair_check.py [--rounds N] [--out DIR] [--seed-a S] [--seed-b S] CRMAP DIR [DIR ...]
For every `<w>.jsonl` with a `<w>_evaluate.json` beside it in each result folder of budgeted.sh (or an
ab_campaigns.sh A side's B sibling), CRMAP trains two policies from the same database, `crmap train --seed S` with
seed A (default 1, train's default) and seed B (default 2) — written to DIR (default a temporary folder; kept and
reused when given) as `<parent>_<folder>_<w>.seed<S>.policy` — asks each for its decision at every held-out shape,
and where they differ measures both beside evaluate's oracle config (N interleaved rounds, default 30, under the
folder's ISA). Nothing but the seed differs, so what it prints — per workload the shapes decided differently and
their oracle ratios, then pooled: within 5% per seed, B/A geo-mean, ahead / behind by more than 1% and clearly —
is the training variance that every A/B of two trainings carries. The loop is decision_pair_check.py's.
"""
import sys

from decision_pair_check import check
from tuned_answers_check import parse_options


def main(argv):
    options, args = parse_options(argv, ("rounds", "out", "seed-a", "seed-b"), __doc__)
    seeds = [options.get("seed-a", "1"), options.get("seed-b", "2")]
    if len(args) < 2 or not all(seed.isdigit() for seed in seeds) or seeds[0] == seeds[1]:
        sys.exit(__doc__)
    crmap, folders = args[0], args[1:]
    sides = [(f"seed{seed}", crmap, ["--seed", seed]) for seed in seeds]
    check(sides, crmap, folders, options.get("rounds", 30), options.get("out"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
