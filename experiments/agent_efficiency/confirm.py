"""Real-hardware confirmation of the two best agents: each ran a real campaign (`crmap tune`); their best
config per shape is measured side by side with the default in one interleaved `crmap compare` per shape.
usage: confirm.py CRMAP WORKLOAD OUT AGENT_A AGENT_B  -> OUT/confirmation.json, OUT/confirmation.md"""
import json
import math
import os
import subprocess
import sys

crmap, workload, out, agent_a, agent_b = sys.argv[1:6]
best = {}
for agent in (agent_a, agent_b):
    summary = json.load(open(os.path.join(out, f"confirm_{workload}_{agent}.json")))
    best[agent] = {",".join(f"{k}={v}" for k, v in sorted(s["dims"].items())): s.get("best") for s in summary["shapes"]}
rows = ["| shape | " + f"{agent_a} best | {agent_b} best | {agent_a} vs default | {agent_b} vs default | {agent_a} / {agent_b} |",
        "|---|---|---|---|---|---|"]
logs = []
records = []
for dims in sorted(best[agent_a]):
    configs = [best[agent_a][dims] or "default", best[agent_b].get(dims) or "default"]
    args = [crmap, "compare", "--workload", workload, "--dims", dims, "-c", "default", "-c", configs[0], "-c", configs[1],
            "--rounds", "30", "--json"]
    result = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)["results"]
    speedups = [1 / r["ratio_to_anchor"]["median"] if r["status"] == "ok" else float("nan") for r in result[1:3]]
    logs.append(math.log(speedups[0] / speedups[1]))
    records.append({"dims": dims, "configs": configs, "speedups": speedups})
    short = lambda c: c if c == "default" else ";".join(kv for kv in c.split(";") if not kv.endswith(("=none", "=stored", "=f32", "=2", "=1", "=0", "=shared")))
    rows.append(f"| {dims} | {short(configs[0])} | {short(configs[1])} | {speedups[0]:.2f}x | {speedups[1]:.2f}x | "
                f"{speedups[0] / speedups[1]:.2f} |")
geo = math.exp(sum(logs) / len(logs))
rows.append(f"| geo-mean | | | | | {geo:.3f} |")
json.dump({"workload": workload, "agents": [agent_a, agent_b], "rows": records, "geo_mean_a_over_b": geo},
          open(os.path.join(out, "confirmation.json"), "w"), indent=2)
open(os.path.join(out, "confirmation.md"), "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
