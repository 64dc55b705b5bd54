#!/usr/bin/env python3
"""Measures the policy's own answers at its tuned shapes where they are not the table's label.

usage: tuned_answers_check.py [--rounds N] [--incumbent static|neighbours] CRMAP DIR [DIR ...]
`crmap train` judges the policy's own answer at each tuned shape (PolicyModel::Decide, as if the shape were not in
the table) against the campaign's records: within 5% of the best measured config, within the labels' tie band,
or unknown where the answer was never measured there. Records are single samples of a noisy machine, so for every
`<w>.jsonl` in each result folder of budgeted.sh this trains a policy with CRMAP (`<w>.tuned_check.policy` and
its report `<w>_tuned_check_train.json`, kept and reused; with `--incumbent neighbours`, `crmap train --incumbent
neighbours` into `<w>.tuned_check_neighbours.policy` and `<w>_tuned_check_neighbours_train.json`), and at each tuned shape whose answer is not the label
measures both side by side (`crmap compare`, the label as anchor, N interleaved rounds, default 30) under the
folder's ISA (version.txt's `environment:` line, e.g. ONEDNN_MAX_CPU_ISA=AVX2; a folder without version.txt is
refused). Prints per folder and workload the train report's counts and each differing shape's records standing
and measured speedup of the answer over the label (the label's latency over the answer's: median of the rounds
and its 95% interval; >= 0.95 is within 5% of the label; "behind" when the whole interval lies below 0.95), then
the pooled count of tuned shapes whose own answer is the label or measured within 5% of it. A train or compare
that fails is named with crmap's message and counted as not measured; the check goes on.
"""
import json
import os
import subprocess
import sys
import tempfile

from calibration_check import workload_arg  # a built-in's name, or a held-out workload's file
import result_files


def folder_environment(folder):
    """The environment budgeted.sh ran the folder's measurements with (its `environment:` line, if any)."""
    env = dict(os.environ)
    path = os.path.join(folder, "version.txt")
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: the folder does not say which ISA its campaigns ran at (budgeted.sh writes it)")
    for line in result_files.load_text_or_exit(path):
        if line.startswith("environment:"):
            for word in line.split()[1:]:
                key, _, value = word.partition("=")
                if key and value:
                    env[key] = value
    return env


def run(args, env=None):
    """crmap's stdout, or None after printing its message to stderr (the check goes on)."""
    try:
        return subprocess.run(args, check=True, capture_output=True, text=True, env=env).stdout
    except subprocess.CalledProcessError as error:
        print(f"{' '.join(args[:2])} failed (exit {error.returncode}): {error.stderr.strip()[-2000:]}", file=sys.stderr)
        return None


def train_report(crmap, root, folder, workload, incumbent="static"):
    suffix = "" if incumbent == "static" else "_" + incumbent
    policy = os.path.join(folder, f"{workload}.tuned_check{suffix}.policy")
    report_path = os.path.join(folder, f"{workload}_tuned_check{suffix}_train.json")
    if not os.path.exists(report_path) or not os.path.exists(policy):
        rule = [] if incumbent == "static" else ["--incumbent", incumbent]  # builds before the flag lack it
        out = run([crmap, "train", "--db", os.path.join(folder, workload + ".jsonl"), "--workload",
                   workload_arg(root, workload), "--out", policy, "--json"] + rule)
        if out is None:
            return None
        with open(report_path, "w") as f:
            f.write(out)
    with open(report_path) as f:
        report = json.load(f)
    if "tuned_shapes" not in report:
        sys.exit(f"{report_path} has no tuned_shapes: CRMAP's train predates them (rebuild, or remove the file)")
    return report


def speedups_over_anchor(crmap, root, workload, dims, anchor, configs, rounds, env):
    """Each config measured beside `anchor` (`crmap compare`, interleaved rounds): per config its speedup over the
    anchor (the anchor's latency over its own: median of the rounds) and that median's 95% interval (None when the
    build writes none), or a string saying what failed: "compare failed", "the anchor failed" or "config <i>
    failed" (i from 0)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "compare.json")
        dims_arg = ",".join(f"{k}={v}" for k, v in dims.items())
        args = [crmap, "compare", "--workload", workload_arg(root, workload), "--dims", dims_arg, "--config", anchor]
        for config in configs:
            args += ["--config", config]
        if run(args + ["--rounds", str(rounds), "--out", out], env) is None:
            return "compare failed"
        with open(out) as f:
            results = json.load(f)["results"]
    if len(results) < 1 + len(configs) or results[0].get("status") != "ok":
        return "the anchor failed"
    speedups = []
    for i, result in enumerate(results[1:1 + len(configs)]):
        ratio = result.get("ratio_to_anchor")  # the config's latency over the anchor's, per round
        if result.get("status") != "ok" or not ratio:
            return f"config {i} failed"
        low, high = ratio.get("median_low"), ratio.get("median_high")
        speedups.append((1 / ratio["median"], (1 / high, 1 / low) if low and high else None))
    return speedups


def measure(crmap, root, workload, dims, label, answer, rounds, env):
    """The answer's speedup over the label (the label's latency over the answer's): the median over interleaved
    rounds and its 95% interval (None when the build writes none), or a string saying which one failed."""
    outcome = speedups_over_anchor(crmap, root, workload, dims, label, [answer], rounds, env)
    if isinstance(outcome, str):
        return {"the anchor failed": "the label failed", "config 0 failed": "the answer failed"}.get(outcome, outcome)
    return outcome[0]


def parse_options(args, names, doc):
    """Leading `--name value` options of `names` (each given at most once; --rounds a whole number >= 6, as an int)
    and the arguments after them; exits with `doc` on an unknown option or a missing or bad value."""
    options = {}
    while args[:1] and args[0].startswith("--"):
        name = args[0][2:]
        if name not in names:
            sys.exit(f"unknown option {args[0]} (allowed: {', '.join('--' + n for n in names)})\n" + doc)
        if len(args) < 2:
            sys.exit(f"{args[0]} needs a value\n" + doc)
        if name == "rounds" and (not args[1].isdigit() or int(args[1]) < 6):
            sys.exit("--rounds needs a whole number >= 6\n" + doc)
        options[name] = int(args[1]) if name == "rounds" else args[1]
        args = args[2:]
    return options, args


def main():
    options, args = parse_options(sys.argv[1:], ("rounds", "incumbent"), __doc__)
    rounds, incumbent = options.get("rounds", 30), options.get("incumbent", "static")
    if incumbent not in ("static", "neighbours"):
        sys.exit(f"--incumbent takes static or neighbours, not {incumbent}\n" + __doc__)
    if len(args) < 2:
        sys.exit(__doc__)
    crmap, folders = args[0], args[1:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    totals = {"shapes": 0, "label": 0, "records_5pct": 0, "records_band": 0, "measured_within": 0, "measured": 0,
              "clearly_behind": 0}
    print("| results | workload | tuned shapes | answer = label | records: within 5% / tie band / unmeasured "
          "| differing answers: speedup over the label, median [95% interval] | label or measured within 5% |")
    print("|---|---|---|---|---|---|---|")
    for folder in folders:
        env = folder_environment(folder)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".jsonl"):
                continue
            workload = name[: -len(".jsonl")]
            report = train_report(crmap, root, folder, workload, incumbent)
            if report is None:
                print(f"| {os.path.basename(os.path.normpath(folder))} | {workload} | train failed | | | | |")
                continue
            cells, within = [], 0
            for shape in report["tuned_shapes"]:
                if shape["policy_answer"] == shape["label"]:
                    continue
                outcome = measure(crmap, root, workload, shape["dims"], shape["label"], shape["policy_answer"], rounds,
                                  env)
                dims = ",".join(f"{k}={v}" for k, v in shape["dims"].items())
                if isinstance(outcome, str):
                    cells.append(f"{dims}: not measured ({outcome})")
                    continue
                speedup, interval = outcome
                totals["measured"] += 1
                within += speedup >= 0.95
                behind = interval is not None and interval[1] < 0.95
                totals["clearly_behind"] += behind
                span = f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ""
                cells.append(f"{dims} ({shape['within_label_tie_band']}): {speedup:.3f}{span}"
                             f"{' **behind**' if behind else ''}")
            agrees = report["policy_agrees_with_table"]
            totals["shapes"] += report["shapes"]
            totals["label"] += agrees
            totals["records_5pct"] += report["policy_within_noise_of_best"]
            totals["records_band"] += report["policy_within_label_tie_band"]
            totals["measured_within"] += within
            print(f"| {os.path.basename(os.path.normpath(folder))} | {workload} | {report['shapes']} | {agrees} | "
                  f"{report['policy_within_noise_of_best']} / {report['policy_within_label_tie_band']} / "
                  f"{report['policy_choice_unmeasured']} | {'; '.join(cells) or '-'} | {agrees + within} |",
                  flush=True)
    print(f"\nall: {totals['shapes']} tuned shapes; the policy's own answer is the label at {totals['label']}, "
          f"within 5% of the best measured by the records at {totals['records_5pct']}, within the labels' tie band "
          f"at {totals['records_band']}; of {totals['measured']} differing answers measured against the label, "
          f"{totals['measured_within']} within 5% (median), {totals['clearly_behind']} behind by more than 5% over the "
          f"whole interval: the label or within 5% of it at {totals['label'] + totals['measured_within']} of "
          f"{totals['shapes']}")


if __name__ == "__main__":
    main()
