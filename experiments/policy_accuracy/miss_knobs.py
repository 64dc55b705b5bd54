#!/usr/bin/env python3
"""Which knobs a policy's misses got wrong: per held-out shape where a policy's pick is below 0.95 of the oracle,
the knobs on which the pick's config differs from the oracle's, and whether the pick is the evaluation's static
plan (the evaluating build's `crmap train` incumbent) or the default config.

usage: miss_knobs.py DIR [DIR ...]
Reads every <workload>_evaluate.json under each DIR (any depth; `crmap evaluate --out`). A pick is a method
"crmap policy (hook)" or "compared policy (hook)" (an A/B folder's B and A) with a config and an oracle ratio; a miss
is a pick below 0.95 of its shape's oracle ("oracle_ratio"); a clear miss one whose interval lies wholly below it
("oracle_ratio_high" < 0.95; evaluations written before the interval have none, so none of theirs is clear). Prints,
per DIR: picks, misses, clear misses, and the misses whose config differs from the oracle's in `threads` alone, in
threads and other knobs, and in other knobs only, and the misses whose pick is the config of the shape's "static
plan" and of its "default config" methods (a pick both counts in both); then, over all DIRs, each knob with the
number of misses on which it differs. The other methods of an evaluation (static plan, nearest tuned shape, default
config) are not picks.
Exit 2 when a DIR is not a folder or holds no evaluation, or a file is malformed (the message names it).
"""
import collections
import os
import sys

from result_files import files_under, load_json, read_structured

PICKS = ("crmap policy (hook)", "compared policy (hook)")
MISS_BELOW = 0.95


def knobs(config):
    """"k=v;k=v" -> {k: v}."""
    return dict(part.split("=", 1) for part in config.split(";") if "=" in part)


def differing_knobs(pick_config, oracle_config):
    pick, oracle = knobs(pick_config), knobs(oracle_config)
    return sorted(name for name in pick.keys() | oracle.keys() if pick.get(name) != oracle.get(name))


def method_config(shape, method):
    """The config of a method's pick at a shape, or None."""
    entry = shape.get(method)
    return entry.get("config") if isinstance(entry, dict) else None


def misses_of(path):
    """(picks, clear misses, [(differing knobs, is the static plan, is the default config) of each miss]) of one
    evaluation."""
    picks, clear, misses = 0, 0, []
    for shape in load_json(path)["shapes"]:
        oracle = shape.get("oracle_config")
        for method in PICKS:
            pick = shape.get(method)
            if not oracle or not isinstance(pick, dict) or "config" not in pick or "oracle_ratio" not in pick:
                continue
            picks += 1
            if pick["oracle_ratio"] < MISS_BELOW:
                misses.append((differing_knobs(pick["config"], oracle),
                               pick["config"] == method_config(shape, "static plan"),
                               pick["config"] == method_config(shape, "default config")))
                clear += pick.get("oracle_ratio_high", MISS_BELOW) < MISS_BELOW
    return picks, clear, misses


def main(argv):
    if len(argv) < 2:
        print(next(line for line in __doc__.splitlines() if line.startswith("usage:")), file=sys.stderr)
        return 2
    by_knob = collections.Counter()
    rows = []
    for root in argv[1:]:
        if not os.path.isdir(root):
            print(f"{root} is not a folder", file=sys.stderr)
            return 2
        paths = files_under(root, lambda name: name.endswith("_evaluate.json"))
        if not paths:
            print(f"no <workload>_evaluate.json under {root}", file=sys.stderr)
            return 2
        picks, clear, misses = 0, 0, []
        for path in paths:
            try:
                counted, clear_here, found = read_structured(path, misses_of)
            except (OSError, ValueError) as error:  # each names the file
                print(error, file=sys.stderr)
                return 2
            picks += counted
            clear += clear_here
            misses += found
        threads_only = sum(differing == ["threads"] for differing, _, _ in misses)
        threads_and_more = sum("threads" in differing and differing != ["threads"] for differing, _, _ in misses)
        static_plan = sum(is_static for _, is_static, _ in misses)
        default = sum(is_default for _, _, is_default in misses)
        rows.append(f"| {root} | {picks} | {len(misses)} | {clear} | {threads_only} | {threads_and_more} | "
                    f"{len(misses) - threads_only - threads_and_more} | {static_plan} | {default} |")
        for differing, _, _ in misses:
            by_knob.update(differing)
    print("| folder | picks | misses (< 0.95) | clear misses | threads only | threads and other knobs | "
          "other knobs only | the static plan | the default config |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n| knob | misses on which it differs from the oracle's |")
    print("|---|---|")
    for knob, count in sorted(by_knob.items(), key=lambda item: (-item[1], item[0])):
        print(f"| {knob} | {count} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
