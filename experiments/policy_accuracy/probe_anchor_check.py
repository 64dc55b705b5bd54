#!/usr/bin/env python3
"""Would the range probes have helped had the default not been a label candidate at the probed shapes?

usage: probe_anchor_check.py [--rounds N] [--out DIR] [--without anchors|shapes] CRMAP FOLDER [FOLDER ...]
A check on stored campaigns of `crmap tune --probe-share` (the B sides of an ab_campaigns.sh run with PROBE). At a
probed shape the campaign measured the tuned shapes' labels at every thread count and, beside the first batch, the
default config (the anchor, as at every shape); where the default ties with the probed labels the trainer's
noise-aware label can be the default (tied at the most shapes: it is measured at every one), which no search chose.
For each FOLDER and each `<w>_tune.json` in it naming `range_probe_shapes`, this writes `<w>.no_probe_anchor.jsonl`
beside `<w>.jsonl`: the same records without the `anchor` records at those shapes (the probes keep their speedups:
each record carries its ratio to the anchor measured in the same rounds), unless it exists. Then
decision_pair_check.py's loop trains a policy from each database with CRMAP (sides "with anchor" and "without";
the workloads some folder probed), and where their decisions at the folder's held-out shapes differ, measures both
beside the evaluation's oracle config (N interleaved rounds, default 30; policies in DIR, a temporary folder unless
given). Prints per folder the databases written, then the pair table. `--without shapes` leaves out every record
at the probed shapes instead (`<w>.no_probed_shapes.jsonl`, side "without"): the campaign as though it had kept the
share and not probed, which tells the probes' effect on the policy from the difference between the two sides'
campaigns. Run it on copies of stored folders: it writes into them.
"""
import json
import os
import sys

from decision_pair_check import check
from result_files import MAX_BYTES, load_json, load_text
from tuned_answers_check import parse_options

SUFFIXES = {"anchors": ".no_probe_anchor", "shapes": ".no_probed_shapes"}


def without_probe_anchors(lines, probed_shapes, every_record=False):
    """The database's lines without the `anchor` records at the probed shapes (dims dicts) — with `every_record`,
    without any record there; other lines as they are."""
    kept = []
    for line in lines:
        record = json.loads(line) if line.strip() else None
        if record and (every_record or record.get("agent") == "anchor") and record.get("dims") in probed_shapes:
            continue
        kept.append(line)
    return kept


def write_databases(folder, without="anchors"):
    """Writes `<w>.no_probe_anchor.jsonl` for every probed workload of the folder unless it exists; returns one line
    per database written and the workloads that have one."""
    lines, probed_workloads = [], set()
    for name in sorted(os.listdir(folder)):
        if not name.endswith("_tune.json"):
            continue
        workload = name[: -len("_tune.json")]
        probed = load_json(os.path.join(folder, name)).get("range_probe_shapes") or []
        database = os.path.join(folder, f"{workload}.jsonl")
        target = os.path.join(folder, f"{workload}{SUFFIXES[without]}.jsonl")
        if not probed or not os.path.exists(database):
            continue
        probed_workloads.add(workload)
        if os.path.exists(target):
            continue
        original = load_text(database, MAX_BYTES)
        kept = without_probe_anchors(original, probed, every_record=without == "shapes")
        with open(target + ".tmp", "w") as f:
            f.writelines(line + "\n" for line in kept)
        os.replace(target + ".tmp", target)
        what = "records" if without == "shapes" else "anchor records"
        lines.append(f"{folder}: {workload}: {len(original) - len(kept)} {what} left out at {len(probed)} "
                     "probed shapes")
    return lines, probed_workloads


def main(argv):
    options, args = parse_options(argv, ("rounds", "out", "without"), __doc__)
    without = options.get("without", "anchors")
    if without not in SUFFIXES or len(args) < 2:
        sys.exit(__doc__)
    crmap, folders = args[0], args[1:]
    workloads = set()
    for folder in folders:
        try:
            lines, probed = write_databases(folder, without)
        except (OSError, ValueError) as error:
            sys.exit(f"cannot read {folder}: {error!r}")
        workloads |= probed
        for line in lines:
            print(line, flush=True)
    print()
    first = "with anchor" if without == "anchors" else "with probes"
    check([(first, crmap, []), ("without", crmap, [], SUFFIXES[without])], crmap, folders,
          int(options.get("rounds", 30)), options.get("out"), sorted(workloads))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
