#!/usr/bin/env python3
"""Tables of experiments/policy_accuracy/budgeted.sh: one for the held-out workloads, one for the built-ins.

usage: budgeted_table.py OUT_DIR "HELD_OUT_NAMES"
Per workload: the campaign budget against the exhaustive space of its tuned shapes (the protocol's TUNED; with
EXPLORE, the part spent on suggested shapes), how many tuned shapes the policy's own choice reproduces and, each
tuned shape left out in turn, at how many the choice stood within 5% (train's report), then per method CTMA (share
of held-out shapes within 5% of the oracle), the geometric-mean oracle ratio and the worst shape's ratio, and (from
an evaluate with a confirmation run) the shapes clearly within / clearly missed, and the first run's CTMA and
geo-mean (against the oracle in the run that chose it, biased low). Closes with the targets of issue 12.
"""
import re
import os
import sys

from result_files import load_json_or_exit, load_text_or_exit


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, held_out = sys.argv[1], sys.argv[2].split()
    for name in ("budgets.txt", "protocol.txt"):
        if not os.path.isfile(os.path.join(out, name)):
            sys.exit(f"{os.path.join(out, name)} is missing: OUT_DIR is a folder budgeted.sh wrote\n" + __doc__)
    budgets = {}
    budgets_path = os.path.join(out, "budgets.txt")
    for number, line in enumerate(load_text_or_exit(budgets_path), 1):
        words = line.split()  # a fourth word, the workload's tuned shapes, from 2026-12-07 on
        if len(words) not in (3, 4) or not all(word.isdigit() for word in words[1:]):
            sys.exit(f"{budgets_path}:{number}: expected 'workload plan_configs budget [tuned_shapes]', got '{line}'")
        budgets[words[0]] = tuple(int(word) for word in words[1:])
    protocol_path = os.path.join(out, "protocol.txt")
    protocol = "\n".join(load_text_or_exit(protocol_path)).strip()
    tuned_match = re.search(r"x (\d+) tuned shapes", protocol)
    if not tuned_match:
        sys.exit(f"{protocol_path} does not say 'x N tuned shapes': not a protocol budgeted.sh wrote")
    tuned_in_protocol = int(tuned_match.group(1))
    print(f"{protocol}\n")
    for title, names in (("held-out workloads", [n for n in held_out if n in budgets]),
                         ("built-in workloads", [n for n in sorted(budgets) if n not in held_out])):
        if not names:
            continue
        print(f"### {title}\n")
        configs_header = "plan configs this host runs" if "plan configs this host runs" in protocol else "plan configs"
        print(f"| workload | {configs_header} | budget | tuned shapes reproduced | method | CTMA | geo-mean | worst "
              "| clearly within / missed | first run: CTMA, geo-mean |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name in names:
            train_path = os.path.join(out, f"{name}_train.json")
            eval_path = os.path.join(out, f"{name}_evaluate.json")
            if not (os.path.exists(train_path) and os.path.exists(eval_path)):
                print(f"| {name} | | | | (not evaluated yet) | | | | | |")
                continue
            train, evaluation = load_json_or_exit(train_path), load_json_or_exit(eval_path)
            plan, budget, tuned_here = (*budgets[name], tuned_in_protocol)[:3]
            tuned = train["shapes"]
            reproduced = f"{train['policy_agrees_with_table']} of {tuned}"
            if "policy_within_noise_of_best" in train:  # crmap from stop 22 on
                reproduced += f" ({train['policy_within_noise_of_best']} within 5%"
                if "policy_within_label_tie_band" in train:  # crmap from stop 33 on
                    reproduced += f", {train['policy_within_label_tie_band']} within the labels' tie band"
                reproduced += ")"
            loso = train.get("leave_one_shape_out")
            if loso and loso["folds"]:
                reproduced += (f"; left out: {loso['within_noise_of_best']} of {loso['choice_measured']}"
                               f" ({loso['folds'] - loso['choice_measured']} unmeasured)")
            spent = f"{budget} ({100.0 * budget / (plan * tuned_here):.0f}%)"
            explore_path = os.path.join(out, f"{name}_explore_tune.json")
            if os.path.exists(explore_path):
                explore = load_json_or_exit(explore_path)
                spent += f", {explore['measured_now']} on {len(explore['shapes'])} suggested shapes"
            head = [name, str(plan), spent, reproduced]
            for i, method in enumerate(evaluation["methods"]):
                cells = head if i == 0 else ["", "", "", ""]
                clear, first = "", ""  # an evaluate without a confirmation run (or before crmap had one)
                if evaluation.get("confirm_rounds", 0) > 0:
                    clear = f"{method['clearly_within']} / {method['clear_misses']}"
                    first = f"{100 * method['sweep_ctma']:.0f}%, {method['sweep_geo_mean_oracle_ratio']:.3f}"
                print("| " + " | ".join(cells + [method["method"], f"{100 * method['ctma']:.0f}%",
                                                 f"{method['geo_mean_oracle_ratio']:.3f}",
                                                 f"{method['worst']:.3f}", clear, first]) + " |")
        print()
    print("targets (issue 12): the policy's CTMA >= 95% and geo-mean >= 0.98 on every workload; reproduces the "
          "best measured config at >= 95% of tuned shapes")


if __name__ == "__main__":
    main()
