#!/usr/bin/env bash
# Hook latency: p50/p99 of crmap_hook_decide for a table hit, a cache hit and a network evaluation, on 1 and 2
# threads, next to LibTorch's forward pass of the same policy network (greedy decode). The policy is trained from
# the committed bert_ffn exhaustive database. Writes results/benchmark.json and results/table.md.
#
# usage: experiments/hook_latency/run.sh [--out DIR]
set -euo pipefail
source "$(dirname "$0")/../common.sh"
crmap_experiment_args "$root/experiments/hook_latency/results" "$@"
benchmark="$root/build/crmap_hook_benchmark"
[ -x "$benchmark" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
"$crmap" train --db "$root/experiments/agent_efficiency/results/bert_ffn_grid.jsonl" --out "$out/bert_ffn.policy" >&2
"$benchmark" --policy "$out/bert_ffn.policy" --benchmark_min_time=1 --benchmark_repetitions=1 \
  --benchmark_out="$out/benchmark.json" --benchmark_out_format=json >&2
"$python" - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
data = json.load(open(os.path.join(out, "benchmark.json")))
rows = ["| case | threads | p50 | p99 | mean (Google Benchmark, real time per call and thread) |", "|---|---|---|---|---|"]
names = {"BM_DecideTableHit": "decide: table hit", "BM_DecideCacheHit": "decide: cache hit",
         "BM_DecideNetwork": "decide: network evaluation (C++ in the hook)",
         "BM_LibTorchPolicyForward": "LibTorch: same network, greedy decode"}
for b in data["benchmarks"]:
    base = b["name"].split("/")[0]
    threads = b.get("threads", 1)
    mean_ns = b["real_time"] * (threads if threads > 1 else 1)
    rows.append(f"| {names.get(base, base)} | {threads} | {b['p50_ns'] / 1000:.2f} µs | {b['p99_ns'] / 1000:.2f} µs | "
                f"{mean_ns / 1000:.2f} µs |")
open(os.path.join(out, "table.md"), "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
