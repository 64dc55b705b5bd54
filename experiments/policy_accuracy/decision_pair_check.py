"""Two trainings of the same campaign, measured where their policies decide differently on held-out shapes.

The shared core of incumbent_rule_check.py (one build, two `--incumbent` rules) and build_pair_check.py (two
builds, one rule) and threads_probe.py (one build, the campaign's database with and without probes). A *side* is
(name, crmap, extra train arguments) and optionally a fourth element, the suffix of the database it trains from
(`<w><suffix>.jsonl` in the folder; default none: `<w>.jsonl`). For every `<w>.jsonl` with a
`<w>_evaluate.json` beside it in each result folder of budgeted.sh (or, for the A side of an ab_campaigns.sh run,
`a_seedN`, in its `b_seedN` sibling: the same held-out shapes and oracle), each side trains a policy from the same
database with its own crmap, written to OUT (a temporary folder unless given; kept and reused when given) as
`<parent>_<folder>_<w>.<side>.policy`, and is asked (`crmap query --force`, its own crmap) for its decision at every
held-out shape of the evaluation. Where the two differ, both picks are measured side by side with evaluate's oracle
config as the anchor (`crmap compare` of the measuring crmap, N interleaved rounds, under the folder's ISA:
version.txt's `environment:` line), each as its oracle ratio (the oracle's latency over the pick's: median of the
rounds and its 95% interval). Where they agree the shape counts the same for both and is not measured.

Prints per folder and workload the shapes decided differently and each one's ratios, then pooled over every
differing shape: how many each side has within 5% of the oracle, the geometric mean of second/first, and how many
shapes the second side's pick is ahead or behind by more than 1%, and clearly (the intervals apart). A train,
query or compare that fails is named with crmap's message and its shape left out; the check goes on.
"""
import json
import os
import tempfile

from calibration_check import workload_arg
from ratios import geometric_mean
from tuned_answers_check import folder_environment, run, speedups_over_anchor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
    """The policy's config at `dims` (`crmap query --force`), or None when the query failed."""
    out = run([crmap, "query", "--policy", policy, "--dims", dims, "--force", "--json"])
    return None if out is None else json.loads(out)["config"]


def pooled_summary(pooled, names):
    """The closing line over every measured differing shape (at least one): `pooled` holds per shape (first ratio,
    its interval, second ratio, its interval), an interval being (low, high) or None."""
    first, second = names
    ratio = geometric_mean(b / a for a, _, b, _ in pooled)
    ahead = sum(b > a * 1.01 for a, _, b, _ in pooled)
    behind = sum(b < a / 1.01 for a, _, b, _ in pooled)
    clearly_ahead = sum(1 for _, a_span, _, b_span in pooled if a_span and b_span and b_span[0] > a_span[1])
    clearly_behind = sum(1 for _, a_span, _, b_span in pooled if a_span and b_span and b_span[1] < a_span[0])
    return (f"decided differently and measured at {len(pooled)}: within 5% of the oracle {first} "
            f"{sum(a >= 0.95 for a, *_ in pooled)}, {second} {sum(b >= 0.95 for _, _, b, _ in pooled)}; "
            f"{second}/{first} geo-mean {ratio:.3f}; {second} ahead by more than 1% at {ahead}, behind at {behind}; "
            f"clearly (intervals apart) ahead at {clearly_ahead}, behind at {clearly_behind}")


def train(side, folder, workload, policy):
    """Trains the side's policy from its database unless the policy exists; False when the train failed."""
    crmap, extra = side[1], side[2]
    suffix = side[3] if len(side) > 3 else ""
    if os.path.exists(policy):
        return True
    database = os.path.join(folder, f"{workload}{suffix}.jsonl")
    return run([crmap, "train", "--db", database, "--workload", workload_arg(ROOT, workload)]
               + extra + ["--out", policy, "--json"]) is not None


def check(sides, measuring_crmap, folders, rounds, out_dir=None, workloads=None):
    """Prints the per-workload table and the pooled line (see the module's docstring); `workloads`, when given,
    limits it to those."""
    scratch = tempfile.TemporaryDirectory() if out_dir is None else None
    out_dir = out_dir or scratch.name
    os.makedirs(out_dir, exist_ok=True)
    names = tuple(side[0] for side in sides)
    pooled, shapes_seen = [], 0
    print(f"| results | workload | held-out shapes | decided differently | oracle ratio: {names[0]} → {names[1]}, "
          "median [95% interval] |")
    print("|---|---|---|---|---|")
    for folder in folders:
        env = folder_environment(folder)
        label = os.path.basename(os.path.normpath(folder))
        parent_label = os.path.basename(os.path.dirname(os.path.normpath(folder)))
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".jsonl") or "." in name[: -len(".jsonl")]:
                continue  # a side's other database (`<w><suffix>.jsonl`) is not a workload of its own
            workload = name[: -len(".jsonl")]
            if workloads is not None and workload not in workloads:
                continue
            evaluation = evaluation_path(folder, workload)
            if evaluation is None:
                continue
            with open(evaluation) as f:
                shapes = json.load(f)["shapes"]
            policies = [os.path.join(out_dir, f"{parent_label}_{label}_{workload}.{side[0]}.policy") for side in sides]
            if not all(train(side, folder, workload, policy) for side, policy in zip(sides, policies)):
                print(f"| {parent_label}/{label} | {workload} | train failed | | |", flush=True)
                continue
            cells, differing = [], 0
            for shape in shapes:
                shapes_seen += 1
                dims = ",".join(f"{k}={v}" for k, v in shape["dims"].items())
                picks = [decide(side[1], policy, dims) for side, policy in zip(sides, policies)]
                if None in picks:
                    cells.append(f"{dims}: query failed")
                    continue
                if picks[0] == picks[1]:
                    continue
                differing += 1
                outcome = speedups_over_anchor(measuring_crmap, ROOT, workload, shape["dims"], shape["oracle_config"],
                                               picks, rounds, env)  # each pick's oracle ratio
                if isinstance(outcome, str):
                    cells.append(f"{dims}: not measured ({outcome})")
                    continue
                (a, a_span), (b, b_span) = outcome
                pooled.append((a, a_span, b, b_span))
                span = lambda x: f" [{x[0]:.3f}, {x[1]:.3f}]" if x else ""
                cells.append(f"{dims}: {a:.3f}{span(a_span)} → {b:.3f}{span(b_span)}")
            print(f"| {parent_label}/{label} | {workload} | {len(shapes)} | {differing} | {'; '.join(cells) or '-'} |",
                  flush=True)
    if not pooled:
        print(f"\n{shapes_seen} held-out shapes; no measured shape where the rules decide differently")
        return
    print(f"\n{shapes_seen} held-out shapes, {pooled_summary(pooled, names)}")
