#!/usr/bin/env python3
"""Checks the policy's stated confidence against measured held-out results, without measuring again.

usage: calibration_check.py [--name NAME] CRMAP DIR [DIR ...]
For every `<w>_evaluate.json` in each result folder of budgeted.sh, trains a policy with CRMAP from the same
campaign database (`<w>.NAME.policy`, its report `<w>_NAME_train.json`, NAME `calibrated` unless given — another
name checks another build on folders a check already ran on; kept and reused), asks it
(`crmap query --force`) for its decision and confidence at each held-out shape, and where its decision is the
config that evaluate measured for the policy, pairs the confidence with that shape's measured oracle ratio
(within 5%: ratio >= 0.95). A decision that differs (the evaluated policy came from an older build) is not
counted. Prints, per folder and workload, the leave-one-shape-out estimate `train` made, the held-out share
within 5% and the mean stated confidence, then all shapes pooled by stated-confidence band: a calibrated
confidence states, per band, the share that is within 5% — once as CRMAP's policy states it, once as the
evaluated policy did (recorded in its evaluate.json), on the same shapes — then the same pairs by where the shape
lies, within the tuned range or beyond it (some dim below the smallest or above the largest value of the policy's
tuned shapes: where the critics extrapolate), with each source's Brier score (mean squared difference between the
stated confidence and the outcome, 1 within 5% and 0 not: lower is better; stating the pooled share everywhere
scores the base rate's variance).
"""
import json
import os
import subprocess
import sys

from shape_rules import beyond_range

HELD_OUT = {"qwen2_mlp", "mobilenet_v2_block", "dlrm_bottom_mlp"}
BANDS = [(0.0, 0.5), (0.5, 0.8), (0.8, 1.0001)]


def workload_arg(root, name):
    return os.path.join(root, "datasets/heldout/workloads", name + ".json") if name in HELD_OUT else name


def crmap_json(crmap, *args):
    out = subprocess.run([crmap, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def beyond_tuned_range(shape, table):
    """Whether a held-out shape lies beyond the range of the policy's tuned shapes: evaluate's own flag, or for
    files from before it, the same rule (tuner/nearest_shape.h: BeyondRangeOf) over export's table."""
    if "beyond_tuned_range" in shape:
        return shape["beyond_tuned_range"]
    return beyond_range(shape["dims"], [entry["dims"] for entry in table])


def brier(rows):
    return sum((c - ok) ** 2 for c, ok in rows) / len(rows)


def main():
    args = sys.argv[1:]
    policy_name = "calibrated"
    if args[:1] == ["--name"]:
        if len(args) < 2 or not args[1].isidentifier():
            sys.exit("--name needs a name of letters, digits and underscores\n" + __doc__)
        policy_name, args = args[1], args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    crmap, folders = args[0], args[1:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pooled, as_evaluated = [], []
    by_range = []  # (beyond the tuned range, confidence as CRMAP's policy states it, as evaluated, within 5%)
    print("| results | workload | leave-one-shape-out (train) | held-out within 5% | mean stated confidence "
          "| shapes paired |")
    print("|---|---|---|---|---|---|")
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not name.endswith("_evaluate.json"):
                continue
            workload = name[: -len("_evaluate.json")]
            db = os.path.join(folder, workload + ".jsonl")
            policy = os.path.join(folder, f"{workload}.{policy_name}.policy")
            report_path = os.path.join(folder, f"{workload}_{policy_name}_train.json")
            if not os.path.exists(report_path):
                report = crmap_json(crmap, "train", "--db", db, "--workload", workload_arg(root, workload),
                                    "--out", policy)
                with open(report_path, "w") as f:
                    json.dump(report, f, indent=2)
            with open(report_path) as f:
                report = json.load(f)
            with open(os.path.join(folder, name)) as f:
                evaluation = json.load(f)
            paired = []
            table = json.loads(subprocess.run([crmap, "export", "--policy", policy, "--format", "json"], check=True,
                                              capture_output=True, text=True).stdout)["table"]
            for shape in evaluation["shapes"]:
                dims = ",".join(f"{k}={v}" for k, v in shape["dims"].items())
                answer = crmap_json(crmap, "query", "--policy", policy, "--dims", dims, "--force")
                measured = shape["crmap policy (hook)"]
                if answer["config"] == measured["config"]:
                    within_5pct = measured["oracle_ratio"] >= 0.95
                    paired.append((answer["confidence"], within_5pct))
                    stated_then = shape.get("confidence", -1)
                    if stated_then is not None and stated_then >= 0:
                        as_evaluated.append((stated_then, within_5pct))
                        if answer["confidence"] >= 0:
                            by_range.append((beyond_tuned_range(shape, table), answer["confidence"],
                                             stated_then, within_5pct))
            pooled += paired
            loso = report.get("leave_one_shape_out", {})
            within = sum(ok for _, ok in paired)
            known = [c for c, _ in paired if c >= 0]  # -1: the hook states none (the fallback answered)
            mean_conf = sum(known) / len(known) if known else float("nan")
            print(f"| {os.path.basename(os.path.normpath(folder))} | {workload} | "
                  f"{loso.get('within_noise_of_best', 0)} of {loso.get('choice_measured', 0)} "
                  f"({loso.get('folds', 0) - loso.get('choice_measured', 0)} unmeasured) | "
                  f"{within} of {len(paired)} | {mean_conf:.2f} | {len(paired)} of {len(evaluation['shapes'])} |")
    for title, rows in (("stated by CRMAP's policy", pooled),
                        ("as the evaluated policy stated it (its evaluate.json; before format 4: the raw agreement)",
                         as_evaluated)):
        rows = [(c, ok) for c, ok in rows if c >= 0]
        if not rows:
            continue
        print(f"\nconfidence {title}:\n")
        print("| stated confidence | shapes | mean stated | within 5% of the oracle |")
        print("|---|---|---|---|")
        for lo, hi in BANDS:
            band = [(c, ok) for c, ok in rows if lo <= c < hi]
            if band:
                print(f"| [{lo:.1f}, {min(hi, 1.0):.1f}{')' if hi < 1 else ']'} | {len(band)} | "
                      f"{sum(c for c, _ in band) / len(band):.2f} | {sum(ok for _, ok in band) / len(band):.2f} |")
        stated = sum(c for c, _ in rows) / len(rows)
        right = sum(ok for _, ok in rows) / len(rows)
        print(f"| all | {len(rows)} | {stated:.2f} | {right:.2f} |")
    if by_range:
        print("\nby where the shape lies (shapes both policies state a confidence for):\n")
        print("| held-out shapes | shapes | within 5% of the oracle | stated by CRMAP's policy | Brier "
              "| stated as evaluated | Brier |")
        print("|---|---|---|---|---|---|---|")
        for title, keep in (("within the tuned range", lambda b: not b), ("beyond it", lambda b: b),
                            ("all", lambda b: True)):
            rows = [r for r in by_range if keep(r[0])]
            if not rows:
                continue
            now = [(c, ok) for _, c, _, ok in rows]
            then = [(c, ok) for _, _, c, ok in rows]
            print(f"| {title} | {len(rows)} | {sum(ok for *_, ok in rows) / len(rows):.2f} | "
                  f"{sum(c for c, _ in now) / len(rows):.2f} | {brier(now):.3f} | "
                  f"{sum(c for c, _ in then) / len(rows):.2f} | {brier(then):.3f} |")


if __name__ == "__main__":
    main()
