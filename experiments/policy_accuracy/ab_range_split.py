#!/usr/bin/env python3
"""The held-out shapes of an ab_campaigns.sh run split by build A's tuned range: does B gain beyond it, inside it?

usage: ab_range_split.py [--above] OUT_DIR
Reads OUT_DIR/a_seed<N>/<workload>_train.json (A's `tuned_shapes`) and OUT_DIR/b_seed<N>/<workload>_evaluate.json
(B's policy "crmap policy (hook)", A's "compared policy (hook)" and B's nearest tuned shape, one oracle per
held-out shape). A held-out shape lies beyond A's range when some dim is below the smallest or above the largest
value A's tuned shapes give it (tuner/nearest_shape.h: BeyondRangeOf). Prints, per workload and side of the
range, over all seeds: how many shapes, and per method the count within 5% of the oracle and the geo-mean oracle
ratio. With --above, the shapes beyond split in two: "above" (some dim above A's range, none below it:
nearest_shape.h's AboveRangeOf, where `crmap tune --probe-share` probes) and "beyond, not above". Exit 2 when
OUT_DIR holds no evaluation or a file is missing or malformed.
"""
import collections
import glob
import os
import re
import sys

from ratios import geometric_mean
from result_files import load_json
from shape_rules import above_range, beyond_range

METHODS = [("A", "compared policy (hook)"), ("B", "crmap policy (hook)"), ("nearest (B)", "nearest tuned shape")]


def side_of(dims, tuned, split_above):
    """Where a held-out shape lies against A's tuned shapes: inside, beyond, or (split_above) above / beyond, not
    above."""
    if not beyond_range(dims, tuned):
        return "inside"
    if not split_above:
        return "beyond"
    return "above" if above_range(dims, tuned) else "beyond, not above"


def main(argv):
    split_above = "--above" in argv[1:]
    args = [arg for arg in argv[1:] if arg != "--above"]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out = args[0]
    rows = collections.defaultdict(list)  # (workload, side) -> [[ratio per method]]
    evaluations = sorted(glob.glob(os.path.join(out, "b_seed*", "*_evaluate.json")))
    if not evaluations:
        print(f"no b_seed*/<workload>_evaluate.json in {out}: run ab_campaigns.sh first", file=sys.stderr)
        return 2
    reading = out  # the file being read, for the message
    try:
        for path in evaluations:
            seed = re.search(r"b_seed(\d+)", path).group(1)
            workload = os.path.basename(path)[: -len("_evaluate.json")]
            reading = os.path.join(out, f"a_seed{seed}", f"{workload}_train.json")
            tuned = [shape["dims"] for shape in load_json(reading)["tuned_shapes"]]
            reading = path
            for shape in load_json(path)["shapes"]:
                side = side_of(shape["dims"], tuned, split_above)
                rows[(workload, side)].append([shape[key]["oracle_ratio"] for _, key in METHODS])
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"cannot read {reading}: {error!r}", file=sys.stderr)
        return 2
    print("| workload | held-out shapes vs A's tuned range | " + " | ".join(
        f"{name}: within 5%, geo-mean" for name, _ in METHODS) + " |")
    print("|---|---|" + "---|" * len(METHODS))
    for (workload, side), ratios in sorted(rows.items()):
        cells = []
        for m in range(len(METHODS)):
            within = sum(r[m] >= 0.95 for r in ratios)
            geo = geometric_mean(r[m] for r in ratios)
            cells.append(f"{within} of {len(ratios)}, {geo:.3f}")
        print(f"| {workload} | {side} ({len(ratios)}) | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
