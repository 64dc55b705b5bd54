"""Summarises experiments/thread_order: per harness mode and config, median and p95 in each order and run; the
cross-order ratio next to the same-order repeat ratio (the noise band). Writes summary.json and table.md."""
import json
import os
import sys

out = sys.argv[1]
shapes = sys.argv[2:] or ["tokens=2"]
summary = {}
for shape, warm in [(s, w) for s in shapes for w in ("1", "0")]:
    runs = {}
    for order in ("forward", "reverse"):
        for repeat in ("1", "2"):
            data = json.load(open(os.path.join(out, f"{shape.replace('=', '_')}_warm{warm}_{order}_{repeat}.json")))
            for r in data["results"]:
                if r["status"] != "ok":
                    continue
                label = r["config"]
                runs.setdefault(label, {})[(order, repeat)] = {
                    "median": r["latency_us"]["median"], "p95": r["latency_us"]["p95"],
                    "p99": r["latency_us"]["p99"],
                    "cold_median": r.get("cold_latency_us", {}).get("median")}
    summary[(shape, warm)] = runs


def short(config):
    parts = dict(kv.split("=") for kv in config.split(";"))
    return f"threads={parts['threads']}, weights={parts['weights']}"


def spread(values):
    return max(values) / min(values)


lines = ["| dims | harness | config | median us: fwd run 1 / run 2, rev run 1 / run 2 | p95 us: same | "
         "median: across orders / same-order noise | p95: across orders / same-order noise | cold median us |",
         "|---|---|---|---|---|---|---|---|"]
rows = []
for (shape, warm), runs in summary.items():
    mode = "warm call before each sample" if warm == "1" else "no warm call (before issue 8)"
    for config, by_run in sorted(runs.items()):
        if len(by_run) != 4:
            continue
        f1, f2, r1, r2 = (by_run[k] for k in (("forward", "1"), ("forward", "2"), ("reverse", "1"), ("reverse", "2")))
        row = {"dims": shape, "warm_calls": int(warm), "config": short(config)}
        for stat in ("median", "p95"):
            within = max(spread([f1[stat], f2[stat]]), spread([r1[stat], r2[stat]]))
            across = spread([(f1[stat] * f2[stat]) ** 0.5, (r1[stat] * r2[stat]) ** 0.5])
            row[stat] = [f1[stat], f2[stat], r1[stat], r2[stat]]
            row[f"{stat}_across_orders"] = across
            row[f"{stat}_noise"] = within
        colds = [x["cold_median"] for x in (f1, f2, r1, r2) if x["cold_median"]]
        row["cold_median"] = sorted(colds)[len(colds) // 2] if colds else None
        rows.append(row)
        lines.append("| {} | {} | {} | {:.0f} / {:.0f}, {:.0f} / {:.0f} | {:.0f} / {:.0f}, {:.0f} / {:.0f} | {:.2f}x / {:.2f}x | "
                     "{:.2f}x / {:.2f}x | {} |".format(
                         shape, mode, row["config"], *row["median"], *row["p95"], row["median_across_orders"],
                         row["median_noise"], row["p95_across_orders"], row["p95_noise"],
                         f"{row['cold_median']:.0f}" if row["cold_median"] else "-"))
json.dump(rows, open(os.path.join(out, "summary.json"), "w"), indent=2)
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
