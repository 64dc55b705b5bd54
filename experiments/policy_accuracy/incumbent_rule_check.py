#!/usr/bin/env python3
"""Measures the neighbours' incumbent against the static plan's on held-out shapes evaluate already measured.

usage: incumbent_rule_check.py [--rounds N] [--out DIR] CRMAP DIR [DIR ...]
For every `<w>.jsonl` with a `<w>_evaluate.json` beside it in each result folder of budgeted.sh (or, for the A
side of an ab_campaigns.sh run, `a_seedN`, in its `b_seedN` sibling: the same held-out shapes and oracle), trains
two policies from the same database with CRMAP — `crmap train --incumbent static` and `--incumbent neighbours`,
written to DIR (default: a temporary folder; kept and reused when given) as `<parent>_<folder>_<w>.static.policy` and
`.neighbours.policy` — and asks each (`crmap query --force`) for its decision at every held-out shape of the
evaluation. Where the two differ, both picks are measured side by side with evaluate's oracle config as the anchor
(`crmap compare`, N interleaved rounds, default 30, under the folder's ISA: version.txt's `environment:` line),
each as its oracle ratio (the oracle's latency over the pick's: median of the rounds and its 95% interval).
Where they agree the shape counts the same for both and is not measured.

Prints per folder and workload the shapes decided differently and each one's ratios, then pooled over every
differing shape: how many each rule has within 5% of the oracle, the geometric mean of neighbours/static, and
how many shapes the neighbours' pick is ahead or behind by more than 1%, and clearly (the intervals apart).
A train, query or compare that fails is named with crmap's message and its shape left out; the check goes on.
The loop is decision_pair_check.py's (build_pair_check.py runs it for two builds instead of two rules).
"""
import sys

from decision_pair_check import check
from tuned_answers_check import parse_options


def main():
    options, args = parse_options(sys.argv[1:], ("rounds", "out"), __doc__)
    if len(args) < 2:
        sys.exit(__doc__)
    crmap, folders = args[0], args[1:]
    sides = [(rule, crmap, ["--incumbent", rule]) for rule in ("static", "neighbours")]
    check(sides, crmap, folders, options.get("rounds", 30), options.get("out"))


if __name__ == "__main__":
    main()
