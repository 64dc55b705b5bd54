#!/usr/bin/env python3
"""Splits incumbent_rule_check.py's measured shapes by the campaign's tuned range. Measures nothing.

usage: incumbent_rule_split.py MD [MD ...]
Each MD is a table incumbent_rule_check.py printed (ratios rounded to 3 decimals, so a pick within 1% and a bit may
count as level here where the check's own summary, from unrounded ratios, counts it ahead)
(results/budgeted/incumbent_rule_check_*.md); its rows name a result folder (relative to results/budgeted) and a
workload, whose database `<w>.jsonl` gives the tuned shapes. A held-out shape lies beyond the tuned range when some
dim is below the smallest or above the largest value of the tuned shapes (as `crmap evaluate` reports it). Prints
per MD and for all: the shapes decided differently, how many each rule has within 5% of the oracle, and the
geometric mean neighbours/static, inside and beyond the range; and what the neighbours' rule applied only inside
the range would score (read off the same measurements: a policy's decision depends only on the incumbent at the
shape, so inside the range it is the neighbours' pick, beyond it the static one).
"""
import json
import os
import re
import sys

from ratios import geometric_mean
from shape_rules import beyond_range

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "budgeted")
# "dims: static [interval] → neighbours [interval]"; an interval is absent where the build wrote none.
PAIR = re.compile(r"([\w=,]+): ([\d.]+)(?: \[[\d.]+, [\d.]+\])? → ([\d.]+)(?: \[[\d.]+, [\d.]+\])?")


def tuned_shapes(database):
    """The database's shapes' dims, each once: the policy's tuned shapes."""
    with open(database) as f:
        shapes = {tuple(sorted(json.loads(line)["dims"].items())) for line in f}
    return [dict(shape) for shape in sorted(shapes)]


def shapes_of(md):
    """Per differing shape: (beyond the tuned range, static's oracle ratio, the neighbours' oracle ratio)."""
    rows = []
    with open(md) as f:
        for line in f:
            cells = [c.strip() for c in line.split("|")[1:-1]]
            if len(cells) != 5 or cells[0] in ("results", "---"):
                continue
            folder = cells[0][len("budgeted/"):] if cells[0].startswith("budgeted/") else cells[0]
            database = os.path.join(ROOT, folder, cells[1] + ".jsonl")
            if not os.path.exists(database):
                sys.exit(f"{md}: {database} is missing (rows name folders under {ROOT})")
            tuned = tuned_shapes(database)
            for match in PAIR.finditer(cells[4]):
                dims = {k: int(v) for k, v in (kv.split("=") for kv in match.group(1).split(","))}
                beyond = beyond_range(dims, tuned)
                rows.append((beyond, float(match.group(2)), float(match.group(3))))
    return rows


def within(ratios):
    return sum(r >= 0.95 for r in ratios)


def line(name, rows):
    if not rows:
        return f"| {name} | 0 | | | |"
    inside_only = [n if not beyond else s for beyond, s, n in rows]
    return (f"| {name} | {len(rows)} ({sum(b for b, _, _ in rows)} beyond) | {within(s for _, s, _ in rows)} → "
            f"{within(n for _, _, n in rows)} | {geometric_mean([n / s for _, s, n in rows]):.3f} | "
            f"{within(inside_only)}, {geometric_mean([o / s for o, (_, s, _) in zip(inside_only, rows)]):.3f} |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("| measured shapes | decided differently | within 5%: static → neighbours | neighbours/static geo-mean | "
          "neighbours only inside the range: within 5%, geo-mean over static |")
    print("|---|---|---|---|---|")
    every = []
    for md in sys.argv[1:]:
        rows = shapes_of(md)
        every += rows
        name = os.path.basename(md)
        print(line(name, rows))
        print(line(f"{name}, inside the range", [r for r in rows if not r[0]]))
        print(line(f"{name}, beyond it", [r for r in rows if r[0]]))
    print(line("**all**", every))
    print(line("**all**, inside the range", [r for r in every if not r[0]]))
    print(line("**all**, beyond it", [r for r in every if r[0]]))


if __name__ == "__main__":
    main()
