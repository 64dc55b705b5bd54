"""Summarises agent_efficiency results: table.md, transfer.md, summary.json and agent_efficiency.png.

Best-found / oracle is the geometric mean over shapes of (best speedup found so far / the exhaustive optimum's
speedup), counting the default config (speedup 1) at shapes where nothing better was found yet.
"""
import glob
import json
import math
import os
import statistics
import sys

out = sys.argv[1]
fractions = [0.025, 0.05, 0.10, 0.25]
summary = {"workloads": {}, "top_two": {}}
table = ["| workload | agent | " + " | ".join(f"{int(f * 1000) / 10:g}% of exhaustive" for f in fractions) +
         " | measurements to 95% (mean of seeds) | beats random at every budget |",
         "|---|---|" + "---|" * len(fractions) + "---|---|"]
curves_by_workload = {}


def at(curve, budget):
    value = curve[0][1]
    for measured, ratio in curve:
        if measured <= budget:
            value = ratio
    return value


for path in sorted(glob.glob(os.path.join(out, "*_replay.json"))):
    data = json.load(open(path))
    workload, recorded = data["workload"], data["recorded"]
    runs = {}
    for run in data.get("runs", []):
        runs.setdefault(run["agent"], []).append(run["curve"])
    curves_by_workload[workload] = (recorded, runs)
    entry = {"recorded": recorded, "shapes": data["shapes"], "agents": {}}
    budgets = sorted({m for curves in runs.values() for c in curves for m, _ in c})
    random_mean = {b: statistics.mean(at(c, b) for c in runs["random"]) for b in budgets} if "random" in runs else {}
    for agent, curves in runs.items():
        cells, stats = [], {}
        for f in fractions:
            values = [at(c, f * recorded) for c in curves]
            stats[f] = {"mean": statistics.mean(values), "min": min(values), "max": max(values),
                        "std": statistics.pstdev(values)}
            cells.append(f"{stats[f]['mean']:.3f} ± {stats[f]['std']:.3f} (min {stats[f]['min']:.3f})")
        reach = []
        for c in curves:
            hit = next((m for m, r in c if r >= 0.95), None)
            reach.append(hit)
        reached = [r for r in reach if r is not None]
        reach_text = (f"{statistics.mean(reached):.0f} ({100 * statistics.mean(reached) / recorded:.1f}%)"
                      + ("" if len(reached) == len(reach) else f", {len(reach) - len(reached)} seed(s) never")
                      if reached else "never")
        beats = "-"
        if random_mean and agent != "random":
            mine = {b: statistics.mean(at(c, b) for c in curves) for b in budgets}
            beats = "yes" if all(mine[b] >= random_mean[b] - 1e-9 for b in budgets if b > 0) else "no"
        table.append(f"| {workload} | {agent} | " + " | ".join(cells) + f" | {reach_text} | {beats} |")
        entry["agents"][agent] = {"at": {str(f): stats[f] for f in fractions}, "reach_95": reach}
    ranked = sorted((a for a in runs if a != "grid"), key=lambda a: -entry["agents"][a]["at"]["0.1"]["mean"])
    summary["top_two"][workload] = ranked[:2]
    summary["workloads"][workload] = entry
open(os.path.join(out, "table.md"), "w").write("\n".join(table) + "\n")

transfer = ["| workload | held-out shape | rl first proposal / oracle (mean of seeds) | nearest tuned shape's best / oracle | default / oracle |",
            "|---|---|---|---|---|"]
for path in sorted(glob.glob(os.path.join(out, "*_transfer.json"))):
    data = json.load(open(path))
    by_shape = {}
    for run in data.get("runs", []):
        for t in run.get("transfer", []):
            by_shape.setdefault(t["dims"], []).append(t)
    all_rl, all_nearest = [], []
    for dims, items in sorted(by_shape.items()):
        rl = statistics.mean(t["rl_ratio"] for t in items)
        nearest = statistics.mean(t["nearest_ratio"] for t in items)
        all_rl += [t["rl_ratio"] for t in items]
        all_nearest += [t["nearest_ratio"] for t in items]
        transfer.append(f"| {data['workload']} | {dims} | {rl:.3f} (min {min(t['rl_ratio'] for t in items):.3f}) | "
                        f"{nearest:.3f} ({items[0]['nearest_shape']}) | {items[0]['default_ratio']:.3f} |")
    summary.setdefault("transfer", {})[data["workload"]] = {"rl": all_rl, "nearest": all_nearest}
open(os.path.join(out, "transfer.md"), "w").write("\n".join(transfer) + "\n")
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=2)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if curves_by_workload:
        fig, axes = plt.subplots(1, len(curves_by_workload), figsize=(5 * len(curves_by_workload), 4), squeeze=False)
        for ax, (workload, (recorded, runs)) in zip(axes[0], sorted(curves_by_workload.items())):
            for agent, curves in sorted(runs.items()):
                xs = sorted({m for c in curves for m, _ in c})
                means = [statistics.mean(at(c, x) for c in curves) for x in xs]
                lows = [min(at(c, x) for c in curves) for x in xs]
                highs = [max(at(c, x) for c in curves) for x in xs]
                fx = [100 * x / recorded for x in xs]
                ax.plot(fx, means, label=agent)
                ax.fill_between(fx, lows, highs, alpha=0.15)
            ax.axhline(0.95, color="black", linewidth=0.6, linestyle="--")
            ax.axvline(10, color="gray", linewidth=0.6, linestyle=":")
            ax.set_title(f"{workload}: best found / oracle (geo-mean of shapes)", fontsize=8)
            ax.set_xlabel("measurements, % of the exhaustive space")
            ax.set_ylim(0.5, 1.01)
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "agent_efficiency.png"), dpi=110)
except ImportError:
    print("matplotlib missing: no plot", file=sys.stderr)
print(f"wrote {out}/table.md, transfer.md, summary.json, agent_efficiency.png")
