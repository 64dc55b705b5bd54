"""Summarises the knob-effects JSON files of one run: summary.json, table.md and knob_effects.png."""
import glob
import json
import os
import sys

out = sys.argv[1]
rows = []
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    if path.endswith(("_space.json", "summary.json")) or os.path.basename(path) == "version.txt":
        continue
    data = json.load(open(path))
    results = data["results"]
    if results[0]["status"] != "ok":
        print(f"{path}: the default config failed ({results[0]['status']}): no ratios", file=sys.stderr)
        continue
    default = results[0]["config"]
    for r in results:
        if r.get("baseline"):
            continue
        config = r["config"]
        change = "default" if config == default else ";".join(
            kv for kv, d in zip(config.split(";"), default.split(";")) if kv != d)
        row = {"workload": data["workload"],
               "dims": ",".join(f"{k}={v}" for k, v in sorted(data["dims"].items())),
               "change": change, "status": r["status"]}
        if r["status"] == "ok":
            q = r["ratio_to_anchor"]
            row.update(speedup=1 / q["median"], band=[1 / q["p90"], 1 / q["p10"]],
                       median_us=r["latency_us"]["median"], p99_us=r["latency_us"]["p99"],
                       max_error=r.get("max_error", float("nan")),
                       scaled_error=r.get("scaled_error", float("nan")),
                       p95_us=r["latency_us"]["p95"],
                       cold_median_us=r.get("cold_latency_us", {}).get("median", float("nan")),
                       kernels=sorted({k["impl"] for k in r.get("kernels", [])}))
        else:
            row["message"] = r.get("message", "")
        rows.append(row)
host = results[0]["host"] if rows else {}
json.dump({"host": host, "rows": rows}, open(os.path.join(out, "summary.json"), "w"), indent=2)

lines = ["| workload | dims | change vs default | speedup [p10-p90] | default median us | median / p95 us | cold median us | scaled err | kernels |",
         "|---|---|---|---|---|---|---|---|---|"]
baseline_us = {}
for row in rows:
    if row["change"] == "default" and row["status"] == "ok":
        baseline_us[(row["workload"], row["dims"])] = row["median_us"]
for row in rows:
    if row["change"] == "default":
        continue
    if row["status"] != "ok":
        lines.append(f"| {row['workload']} | {row['dims']} | {row['change']} | {row['status']} | | | | | |")
        continue
    lines.append("| {} | {} | {} | {:.2f}x [{:.2f}-{:.2f}] | {:.0f} | {:.0f} / {:.0f} | {:.0f} | {:.1e} | {} |".format(
        row["workload"], row["dims"], row["change"], row["speedup"], row["band"][0], row["band"][1],
        baseline_us.get((row["workload"], row["dims"]), float("nan")), row["median_us"], row["p95_us"],
        row["cold_median_us"], row["scaled_error"], " ".join(row["kernels"])))
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")

# Compact view: per workload and change, the range of speedups over the measured shapes.
ranges = {}
for row in rows:
    if row["change"] == "default":
        continue
    entry = ranges.setdefault((row["workload"], row["change"]), {"speedups": [], "statuses": set(), "shapes": []})
    entry["statuses"].add(row["status"])
    if row["status"] == "ok":
        entry["speedups"].append(row["speedup"])
        entry["shapes"].append(row["dims"])
compact = ["| workload | change vs default | speedup over the 3 shapes (min-max of medians) | status |", "|---|---|---|---|"]
for (workload, change), entry in sorted(ranges.items()):
    sp = entry["speedups"]
    text = f"{min(sp):.2f}-{max(sp):.2f}x" if sp else "-"
    compact.append(f"| {workload} | {change} | {text} | {', '.join(sorted(entry['statuses']))} |")
open(os.path.join(out, "compact.md"), "w").write("\n".join(compact) + "\n")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib missing (apt-get install python3-matplotlib): no plot", file=sys.stderr)
    sys.exit(0)
groups = {}
for row in rows:
    if row["change"] != "default" and row["status"] == "ok":
        groups.setdefault((row["workload"], row["dims"]), []).append(row)
if groups:
    fig, axes = plt.subplots(len(groups), 1, figsize=(11, 2.2 * len(groups)), squeeze=False)
    for ax, ((workload, dims), items) in zip(axes[:, 0], sorted(groups.items())):
        labels = [r["change"] if len(r["change"]) < 48 else r["change"][:45] + "..." for r in items]
        speedups = [r["speedup"] for r in items]
        errors = [[r["speedup"] - r["band"][0] for r in items], [r["band"][1] - r["speedup"] for r in items]]
        ax.barh(range(len(items)), speedups, xerr=errors, color=["tab:green" if s > 1.05 else "tab:red" if s < 0.95
                                                                 else "tab:gray" for s in speedups])
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_yticks(range(len(items)))
        ax.set_yticklabels(labels, fontsize=6)
        ax.set_title(f"{workload} {dims}: speedup over default (median, p10-p90)", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "knob_effects.png"), dpi=110)
print(f"wrote {out}/summary.json, table.md, compact.md, knob_effects.png")
