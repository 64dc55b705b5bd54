"""Summarises the peer sweep JSON files: summary.json, table.md and peer_libtorch.png.

Every LibTorch peer of a run is listed (eager with the BLAS as installed, with the host's OpenBLAS core if the
installed one is older, the oneDNN path); claims are made against the fastest peer of each shape."""
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
    default = final[0]
    best = by_config.get(data.get("best"))
    peers = [r for r in final if r.get("baseline") and r["status"] == "ok" and r.get("ratio_to_anchor")]
    if not best or not peers:
        continue
    ratio = lambda r: r["ratio_to_anchor"]["median"]
    installed = next((p for p in peers if p["config"] == "libtorch"), None)
    fastest = min(peers, key=ratio)
    default_config = default["config"].split(";")
    change = ";".join(kv for kv, d in zip(best["config"].split(";"), default_config) if kv != d) or "default"
    rows.append({
        "workload": data["workload"],
        "dims": ",".join(f"{k}={v}" for k, v in sorted(data["dims"].items())),
        "best": change,
        "screened": data["screened_by_status"],
        "best_median_us": best["latency_us"]["median"], "best_p95_us": best["latency_us"]["p95"],
        "best_p99_us": best["latency_us"]["p99"],
        "default_median_us": default["latency_us"]["median"],
        "peers": {p["config"]: {"median_us": p["latency_us"]["median"], "p95_us": p["latency_us"]["p95"],
                                "p99_us": p["latency_us"]["p99"], "vs_default": 1 / ratio(p),
                                "scaled_error": p.get("scaled_error", float("nan"))} for p in peers},
        "fastest_peer": fastest["config"],
        "fastest_peer_median_us": fastest["latency_us"]["median"], "fastest_peer_p95_us": fastest["latency_us"]["p95"],
        "installed_median_us": installed["latency_us"]["median"] if installed else float("nan"),
        "best_vs_fastest_peer": ratio(fastest) / ratio(best),
        "best_vs_installed": ratio(installed) / ratio(best) if installed else float("nan"),
        "best_vs_default": 1 / ratio(best),
        "default_vs_fastest_peer": ratio(fastest),
        "best_scaled_error": best.get("scaled_error", float("nan")),
        "best_kernels": sorted({k["impl"] for k in best.get("kernels", [])}),
    })
json.dump({"rows": rows, "host": final[0]["host"] if rows else {}}, open(os.path.join(out, "summary.json"), "w"),
          indent=2)
lines = ["| workload | dims | best plan (knobs changed from default) | best us median / p95 | LibTorch as installed us | fastest peer | its us median / p95 | best vs fastest peer | best vs as installed | best vs default | best scaled err |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append("| {workload} | {dims} | {best} | {best_median_us:.0f} / {best_p95_us:.0f} | {installed_median_us:.0f} | "
                 "{fastest_peer} | {fastest_peer_median_us:.0f} / {fastest_peer_p95_us:.0f} | "
                 "**{best_vs_fastest_peer:.2f}x** | {best_vs_installed:.2f}x | {best_vs_default:.2f}x | "
                 "{best_scaled_error:.1e} |".format(**r))
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if rows:
        fig, ax = plt.subplots(figsize=(10, 4))
        labels = [f"{r['workload']}\n{r['dims']}" for r in rows]
        ax.bar(range(len(rows)), [r["best_vs_fastest_peer"] for r in rows], color="tab:blue",
               label="best plan vs the fastest LibTorch peer")
        ax.plot(range(len(rows)), [r["default_vs_fastest_peer"] for r in rows], "o", color="tab:orange",
                label="default config vs the fastest peer")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(labels, fontsize=6, rotation=45, ha="right")
        ax.set_ylabel("speedup over LibTorch at its best")
        ax.set_yscale("log")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "peer_libtorch.png"), dpi=110)
except ImportError:
    print("matplotlib missing: no plot", file=sys.stderr)
print(f"wrote {out}/summary.json, table.md, peer_libtorch.png")
