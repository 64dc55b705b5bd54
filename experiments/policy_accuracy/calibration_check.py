#!/usr/bin/env python3
"""Checks the policy's stated confidence against measured held-out results, without measuring again.

usage: calibration_check.py CRMAP DIR [DIR ...]
For every `<w>_evaluate.json` in each result folder of budgeted.sh, trains a policy with CRMAP from the same
campaign database (`<w>.calibrated.policy`, its report `<w>_calibrated_train.json`; kept and reused), asks it
(`crmap query --force`) for its decision and confidence at each held-out shape, and where its decision is the
config that evaluate measured for the policy, pairs the confidence with that shape's measured oracle ratio
(within 5%: ratio >= 0.95). A decision that differs (the evaluated policy came from an older build) is not
counted. Prints, per folder and workload, the leave-one-shape-out estimate `train` made, the held-out share
within 5% and the mean stated confidence, then all shapes pooled by stated-confidence band: a calibrated
confidence states, per band, the share that is within 5%.
"""
import json
import os
import subprocess
import sys

HELD_OUT = {"qwen2_mlp", "mobilenet_v2_block", "dlrm_bottom_mlp"}
BANDS = [(0.0, 0.5), (0.5, 0.8), (0.8, 1.0001)]


def workload_arg(root, name):
    return os.path.join(root, "datasets/heldout/workloads", name + ".json") if name in HELD_OUT else name


def crmap_json(crmap, *args):
    out = subprocess.run([crmap, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    crmap, folders = sys.argv[1], sys.argv[2:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pooled = []
    print("| results | workload | leave-one-shape-out (train) | held-out within 5% | mean stated confidence "
          "| shapes paired |")
    print("|---|---|---|---|---|---|")
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not name.endswith("_evaluate.json"):
                continue
            workload = name[: -len("_evaluate.json")]
            db = os.path.join(folder, workload + ".jsonl")
            policy = os.path.join(folder, workload + ".calibrated.policy")
            report_path = os.path.join(folder, workload + "_calibrated_train.json")
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
            for shape in evaluation["shapes"]:
                dims = ",".join(f"{k}={v}" for k, v in shape["dims"].items())
                answer = crmap_json(crmap, "query", "--policy", policy, "--dims", dims, "--force")
                measured = shape["crmap policy (hook)"]
                if answer["config"] == measured["config"]:
                    paired.append((answer["confidence"], measured["oracle_ratio"] >= 0.95))
            pooled += paired
            loso = report.get("leave_one_shape_out", {})
            within = sum(ok for _, ok in paired)
            known = [c for c, _ in paired if c >= 0]  # -1: the hook states none (the fallback answered)
            mean_conf = sum(known) / len(known) if known else float("nan")
            print(f"| {os.path.basename(os.path.normpath(folder))} | {workload} | "
                  f"{loso.get('within_noise_of_best', 0)} of {loso.get('choice_measured', 0)} "
                  f"({loso.get('folds', 0) - loso.get('choice_measured', 0)} unmeasured) | "
                  f"{within} of {len(paired)} | {mean_conf:.2f} | {len(paired)} of {len(evaluation['shapes'])} |")
    print("\n| stated confidence | shapes | mean stated | within 5% of the oracle |")
    print("|---|---|---|---|")
    for lo, hi in BANDS:
        band = [(c, ok) for c, ok in pooled if lo <= c < hi]
        if band:
            print(f"| [{lo:.1f}, {min(hi, 1.0):.1f}{')' if hi < 1 else ']'} | {len(band)} | "
                  f"{sum(c for c, _ in band) / len(band):.2f} | {sum(ok for _, ok in band) / len(band):.2f} |")
    pooled = [(c, ok) for c, ok in pooled if c >= 0]
    if pooled:
        stated = sum(c for c, _ in pooled) / len(pooled)
        right = sum(ok for _, ok in pooled) / len(pooled)
        print(f"\nall {len(pooled)} paired shapes with a confidence: mean stated {stated:.2f}, within 5% {right:.2f}")


if __name__ == "__main__":
    main()
