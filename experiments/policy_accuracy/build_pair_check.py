#!/usr/bin/env python3
"""Measures two crmap builds' policies, trained from the same campaigns, where they decide differently.

usage: build_pair_check.py [--rounds N] [--out DIR] CRMAP_A CRMAP_B DIR [DIR ...]
A before/after check of a trainer change that needs no new evaluation: for every `<w>.jsonl` with a
`<w>_evaluate.json` beside it in each result folder of budgeted.sh (or an ab_campaigns.sh A side's B sibling),
CRMAP_A and CRMAP_B each train a policy from the database with `crmap train`'s defaults (written to DIR, default a
temporary folder, as `<parent>_<folder>_<w>.A.policy` and `.B.policy`; kept and reused when given), each build is
asked for its own policy's decision at every held-out shape of the evaluation, and where the two differ both picks
are measured side by side beside evaluate's oracle config (CRMAP_B's `crmap compare`, N interleaved rounds,
default 30, under the folder's ISA). Where they agree the shape counts the same for both and is not measured.
Prints per folder and workload each differing shape's oracle ratios A → B (median and its 95% interval), then
pooled: within 5% of the oracle per side, B/A geo-mean, B ahead or behind by more than 1% and clearly (intervals
apart). A train, query or compare that fails is named with crmap's message and its shape left out.
The loop is decision_pair_check.py's.
"""
import sys

from decision_pair_check import check
from tuned_answers_check import parse_options


def main(argv):
    options, args = parse_options(argv, ("rounds", "out"), __doc__)
    if len(args) < 3:
        sys.exit(__doc__)
    crmap_a, crmap_b, folders = args[0], args[1], args[2:]
    check([("A", crmap_a, []), ("B", crmap_b, [])], crmap_b, folders, options.get("rounds", 30), options.get("out"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
