#!/usr/bin/env python3
"""Measures how far a perfect choice among the tuned shapes' labels would get at the held-out shapes.

usage: label_headroom.py [--rounds N] [--workloads "W ..."] [--out FILE] CRMAP DIR [DIR ...]
A policy answers away from its table with one of the configs its campaign labelled (or the static plan, or its
network's greedy config). Where it misses the oracle, either some label would have been within 5% and the policy
chose wrongly — a selection problem a better learner could fix — or no label was, and only a search that finds
other configs can. For every `<w>.policy` with a `<w>_evaluate.json` beside it in each result folder of budgeted.sh
(the policy that evaluation measured), this takes the distinct configs of the policy's table (`crmap export`) and,
at each held-out shape the evaluation confirmed, measures every distinct label and the evaluation's picks of the
policy, the static plan and the nearest tuned shape side by side with its oracle config as the anchor (`crmap
compare`, N interleaved rounds, default 30, under the folder's ISA): each config's oracle ratio (the oracle's
latency over the config's: median of the rounds and its 95% interval). A label that is the oracle config scores 1
without being measured.

Prints per folder and workload: held-out shapes measured; within 5% of the oracle in this run for the policy's
pick, the static plan, the nearest tuned shape and the best label at each shape (and how many shapes some label is
clearly within: its whole interval at or above 0.95); the geometric means; then the same pooled. The best of
several noisy medians is biased upwards (it is chosen on the samples that score it): "clearly within" is the figure
to read. With --out, every measured ratio is written to FILE as JSON lines (one per shape: folder, workload, dims,
the labels, the picks, and per config its oracle ratio with its interval), so a rule that chooses among the labels
can be scored on them later without measuring again. An export or compare that fails is named with crmap's message
and its shape left out.
"""
import json
import os
import sys

from ratios import geometric_mean
from tuned_answers_check import folder_environment, parse_options, run, speedups_over_anchor

METHODS = ("crmap policy (hook)", "static plan", "nearest tuned shape")


def measure_shape(crmap, root, workload, shape, labels, rounds, env):
    """Per shape: each method's oracle ratio, the best label's and whether some label is clearly within 5%; or a
    string saying what failed."""
    oracle = shape["oracle_config"]
    picks = {m: shape[m]["config"] for m in METHODS if m in shape and "config" in shape[m]}
    configs = [c for c in dict.fromkeys(labels + list(picks.values())) if c != oracle]
    ratios = {oracle: (1.0, (1.0, 1.0))}
    if configs:
        outcome = speedups_over_anchor(crmap, root, workload, shape["dims"], oracle, configs, rounds, env)
        if isinstance(outcome, str):
            return outcome
        ratios.update(zip(configs, outcome))
    best_label = max(labels, key=lambda c: ratios[c][0])
    return {
        "ratios": {c: [r, *(span or (None, None))] for c, (r, span) in ratios.items()},
        "picks": picks,
        "methods": {m: ratios[c][0] for m, c in picks.items()},
        "best_label": ratios[best_label][0],
        "label_clearly_within": any(ratios[c][1] is not None and ratios[c][1][0] >= 0.95 for c in labels),
    }


def row(name, results):
    cells = [name, str(len(results))]
    for key in METHODS + ("best label",):
        values = [r["best_label"] if key == "best label" else r["methods"].get(key) for r in results]
        values = [v for v in values if v is not None]
        cells.append(f"{sum(v >= 0.95 for v in values)}, {geometric_mean(values):.3f}" if values else "-")
    cells.append(str(sum(r["label_clearly_within"] for r in results)))
    return "| " + " | ".join(cells) + " |"


def main():
    options, args = parse_options(sys.argv[1:], ("rounds", "workloads", "out"), __doc__)
    rounds, out_path = options.get("rounds", 30), options.get("out")
    only = set(options["workloads"].split()) if "workloads" in options else None
    if len(args) < 2:
        sys.exit(__doc__)
    crmap, folders = args[0], args[1:]
    if not (os.path.isfile(crmap) and os.access(crmap, os.X_OK)):
        sys.exit(f"{crmap} is not an executable crmap\n" + __doc__)
    for folder in folders:  # every folder checked before anything is measured or written
        if not os.path.isdir(folder):
            sys.exit(f"{folder} is not a folder\n" + __doc__)
        folder_environment(folder)  # exits naming a missing version.txt
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = open(out_path, "w") if out_path else None
    print("| results, workload | held-out shapes | policy: within 5%, geo-mean | static plan | nearest tuned shape | "
          "best label | some label clearly within |")
    print("|---|---|---|---|---|---|---|")
    pooled = []
    for folder in folders:
        env = folder_environment(folder)
        label = os.path.basename(os.path.normpath(folder))
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".policy") or name.count(".") != 1:  # not <w>.calibrated.policy and the like
                continue
            workload = name[: -len(".policy")]
            evaluation = os.path.join(folder, f"{workload}_evaluate.json")
            if (only and workload not in only) or not os.path.exists(evaluation):
                continue
            exported = run([crmap, "export", "--policy", os.path.join(folder, name), "--format", "json"])
            if exported is None:
                print(f"| {label}, {workload} | export failed | | | | | |", flush=True)
                continue
            labels = list(dict.fromkeys(entry["config"] for entry in json.loads(exported)["table"]))
            if not labels:
                print(f"| {label}, {workload} | the policy's table is empty | | | | | |", flush=True)
                continue
            with open(evaluation) as f:
                shapes = [s for s in json.load(f)["shapes"] if s.get("confirmed") and s.get("oracle_config")]
            results = []
            for shape in shapes:
                outcome = measure_shape(crmap, root, workload, shape, labels, rounds, env)
                if isinstance(outcome, str):
                    print(f"{label}, {workload}, {shape['dims']}: not measured ({outcome})", file=sys.stderr)
                    continue
                results.append(outcome)
                if out:
                    out.write(json.dumps({"folder": folder, "workload": workload, "dims": shape["dims"],
                                          "labels": labels, **{k: outcome[k] for k in ("picks", "ratios")}}) + "\n")
                    out.flush()
            pooled += results
            print(row(f"{label}, {workload} ({len(labels)} labels)", results), flush=True)
    if pooled:
        print(row("**pooled**", pooled))
    if out:
        out.close()


if __name__ == "__main__":
    main()
