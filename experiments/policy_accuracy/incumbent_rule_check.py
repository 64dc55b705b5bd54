#!/usr/bin/env python3
"""Measures the neighbours' incumbent against the static plan's on held-out shapes evaluate already measured.

usage: incumbent_rule_check.py [--rounds N] [--out DIR] CRMAP DIR [DIR ...]
For every `<w>.jsonl` with a `<w>_evaluate.json` beside it in each result folder of budgeted.sh (or, for the A
side of an ab_campaigns.sh run, `a_seedN`, in its `b_seedN` sibling: the same held-out shapes and oracle), trains
two policies from the same database with CRMAP — `crmap train --incumbent static` and `--incumbent neighbours`,
written to DIR (default: a temporary folder; kept and reused when given) as `<folder>_<w>.static.policy` and
`.neighbours.policy` — and asks each (`crmap query --force`) for its decision at every held-out shape of the
evaluation. Where the two differ, both picks are measured side by side with evaluate's oracle config as the anchor
(`crmap compare`, N interleaved rounds, default 30, under the folder's ISA: version.txt's `environment:` line),
each as its oracle ratio (the oracle's latency over the pick's: median of the rounds and its 95% interval).
Where they agree the shape counts the same for both and is not measured.

Prints per folder and workload the shapes decided differently and each one's ratios, then pooled over every
differing shape: how many each rule has within 5% of the oracle, the geometric mean of neighbours/static, and
how many shapes the neighbours' pick is ahead or behind by more than 1%, and clearly (the intervals apart).
A train, query or compare that fails is named with crmap's message and its shape left out; the check goes on.
"""
import json
import os
import sys
import tempfile

from calibration_check import workload_arg
from ratios import geometric_mean
from tuned_answers_check import folder_environment, parse_options, run, speedups_over_anchor


def evaluation_path(folder, workload):
    """The folder's evaluation of the workload, or for an ab_campaigns.sh A side its B sibling's."""
    path = os.path.join(folder, f"{workload}_evaluate.json")
    if os.path.exists(path):
        return path
    parent, name = os.path.split(os.path.normpath(folder))
    if name.startswith("a_seed"):
        sibling = os.path.join(parent, "b_" + name[2:], f"{workload}_evaluate.json")
        if os.path.exists(sibling):
            return sibling
    return None


def decide(crmap, policy, dims):
    out = run([crmap, "query", "--policy", policy, "--dims", dims, "--force", "--json"])
    return None if out is None else json.loads(out)["config"]


def main():
    options, args = parse_options(sys.argv[1:], ("rounds", "out"), __doc__)
    rounds, out_dir = options.get("rounds", 30), options.get("out")
    if len(args) < 2:
        sys.exit(__doc__)
    crmap, folders = args[0], args[1:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    scratch = tempfile.TemporaryDirectory() if out_dir is None else None
    out_dir = out_dir or scratch.name
    os.makedirs(out_dir, exist_ok=True)
    pooled = []  # per differing shape: (static ratio, its interval, neighbours ratio, its interval)
    shapes_seen = 0
    print("| results | workload | held-out shapes | decided differently | oracle ratio: static → neighbours, "
          "median [95% interval] |")
    print("|---|---|---|---|---|")
    for folder in folders:
        env = folder_environment(folder)
        label = os.path.basename(os.path.normpath(folder))
        parent_label = os.path.basename(os.path.dirname(os.path.normpath(folder)))
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".jsonl"):
                continue
            workload = name[: -len(".jsonl")]
            evaluation = evaluation_path(folder, workload)
            if evaluation is None:
                continue
            with open(evaluation) as f:
                shapes = json.load(f)["shapes"]
            policies = {}
            for rule in ("static", "neighbours"):
                policy = os.path.join(out_dir, f"{parent_label}_{label}_{workload}.{rule}.policy")
                if not os.path.exists(policy) and run(
                        [crmap, "train", "--db", os.path.join(folder, name), "--workload", workload_arg(root, workload),
                         "--incumbent", rule, "--out", policy, "--json"]) is None:
                    break
                policies[rule] = policy
            if len(policies) < 2:
                print(f"| {parent_label}/{label} | {workload} | train failed | | |", flush=True)
                continue
            cells, differing = [], 0
            for shape in shapes:
                shapes_seen += 1
                dims = ",".join(f"{k}={v}" for k, v in shape["dims"].items())
                static, neighbours = (decide(crmap, policies[rule], dims) for rule in ("static", "neighbours"))
                if static is None or neighbours is None:
                    cells.append(f"{dims}: query failed")
                    continue
                if static == neighbours:
                    continue
                differing += 1
                outcome = speedups_over_anchor(crmap, root, workload, shape["dims"], shape["oracle_config"],
                                               [static, neighbours], rounds, env)  # each pick's oracle ratio
                if isinstance(outcome, str):
                    cells.append(f"{dims}: not measured ({outcome})")
                    continue
                (s, s_span), (n, n_span) = outcome
                pooled.append((s, s_span, n, n_span))
                span = lambda x: f" [{x[0]:.3f}, {x[1]:.3f}]" if x else ""
                cells.append(f"{dims}: {s:.3f}{span(s_span)} → {n:.3f}{span(n_span)}")
            print(f"| {parent_label}/{label} | {workload} | {len(shapes)} | {differing} | {'; '.join(cells) or '-'} |",
                  flush=True)
    if not pooled:
        print(f"\n{shapes_seen} held-out shapes; no measured shape where the rules decide differently")
        return
    ratio = geometric_mean(n / s for s, _, n, _ in pooled)
    ahead = sum(n > s * 1.01 for s, _, n, _ in pooled)
    behind = sum(n < s / 1.01 for s, _, n, _ in pooled)
    clearly_ahead = sum(1 for _, ss, _, ns in pooled if ss and ns and ns[0] > ss[1])
    clearly_behind = sum(1 for _, ss, _, ns in pooled if ss and ns and ns[1] < ss[0])
    print(f"\n{shapes_seen} held-out shapes, decided differently and measured at {len(pooled)}: within 5% of the "
          f"oracle static {sum(s >= 0.95 for s, *_ in pooled)}, neighbours {sum(n >= 0.95 for _, _, n, _ in pooled)}; "
          f"neighbours/static geo-mean {ratio:.3f}; neighbours ahead by more than 1% at {ahead}, behind at {behind}; "
          f"clearly (intervals apart) ahead at {clearly_ahead}, behind at {clearly_behind}")


if __name__ == "__main__":
    main()
