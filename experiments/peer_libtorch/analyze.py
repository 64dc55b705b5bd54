"""Summarises the peer sweep JSON files: summary.json, table.md and peer_libtorch.png."""
import glob
import json
import os
import sys

out = sys.argv[1]
rows = []
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    if path.endswith("summary.json"):
        continue
    data = json.load(open(path))
    final = data["results"]
    by_config = {r["config"]: r for r in final}
    default, torch = final[0], by_config.get("libtorch")
    best = by_config.get(data.get("best"))
    if not best or not torch or torch["status"] != "ok":
        continue
    ratio = lambda r: r["ratio_to_anchor"]["median"]
    default_config = default["config"].split(";")
    change = ";".join(kv for kv, d in zip(best["config"].split(";"), default_config) if kv != d) or "default"
    rows.append({
        "workload": data["workload"],
        "dims": ",".join(f"{k}={v}" for k, v in sorted(data["dims"].items())),
        "best": change,
        "screened": data["screened_by_status"],
        "best_median_us": best["latency_us"]["median"], "best_p99_us": best["latency_us"]["p99"],
        "default_median_us": default["latency_us"]["median"],
        "libtorch_median_us": torch["latency_us"]["median"], "libtorch_p99_us": torch["latency_us"]["p99"],
        "best_vs_libtorch": ratio(torch) / ratio(best),
        "best_vs_default": 1 / ratio(best),
        "default_vs_libtorch": ratio(torch),
        "best_max_error": best.get("max_error", float("nan")),
        "best_kernels": sorted({k["impl"] for k in best.get("kernels", [])}),
    })
json.dump({"rows": rows, "host": final[0]["host"] if rows else {}}, open(os.path.join(out, "summary.json"), "w"),
          indent=2)
lines = ["| workload | dims | best plan (knobs changed from default) | best us (p99) | LibTorch us (p99) | best vs LibTorch | best vs default | default vs LibTorch | best max err | LibTorch max err |",
         "|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append("| {workload} | {dims} | {best} | {best_median_us:.0f} ({best_p99_us:.0f}) | {libtorch_median_us:.0f} "
                 "({libtorch_p99_us:.0f}) | {best_vs_libtorch:.2f}x | {best_vs_default:.2f}x | {default_vs_libtorch:.2f}x | "
                 "{best_max_error:.1e} | 0 (reference) |".format(**r))
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if rows:
        fig, ax = plt.subplots(figsize=(10, 4))
        labels = [f"{r['workload']}\n{r['dims']}" for r in rows]
        ax.bar(range(len(rows)), [r["best_vs_libtorch"] for r in rows], color="tab:blue", label="best plan")
        ax.plot(range(len(rows)), [r["default_vs_libtorch"] for r in rows], "o", color="tab:orange",
                label="default config")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(labels, fontsize=6, rotation=45, ha="right")
        ax.set_ylabel("speedup over LibTorch eager")
        ax.set_yscale("log")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "peer_libtorch.png"), dpi=110)
except ImportError:
    print("matplotlib missing: no plot", file=sys.stderr)
print(f"wrote {out}/summary.json, table.md, peer_libtorch.png")
