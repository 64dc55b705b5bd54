#!/usr/bin/env bash
# Thread wait policy under sporadic arrivals: the GPT-2-medium-sized FFN (1024 -> 4096 -> 1024, 2 tokens per
# request, experiments/thread_order/gpt2_medium_ffn.json) served one request per batch, arrivals Poisson with a
# mean gap of 20 ms (the executor idles between requests, so its OpenMP team falls asleep). Three set-ups on the
# same stream, interleaved over ROUNDS rounds (A B C, B C A, ...): 2 threads passive (OpenMP's own waiting),
# 2 threads --thread-wait spin, 1 thread. Prints p50/p95/p99 of latency and service, the CPU burnt, and the
# ratios to passive. Usage: experiments/serve/thread_wait.sh [ROUNDS] [REQUESTS]   (default 3 rounds, 400)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
# shellcheck source=experiments/serve/lib.sh
source "$root/experiments/serve/lib.sh"  # rotated_rounds
rounds=${1:-3}
requests=${2:-400}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
workload="$root/experiments/thread_order/gpt2_medium_ffn.json"
python3 - "$work/stream.jsonl" "$requests" <<'PY'
import json, random, sys
rng = random.Random(11)
t = 0.0
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2])):
        t += rng.expovariate(1 / 20000)
        f.write(json.dumps({"t_us": round(t, 1), "dims": {"tokens": 2}, "stream": 0, "phase": 0}) + "\n")
PY
"$crmap" version
declare -A args=(
  [passive_2t]="--mode static -c threads=2 --thread-wait passive"
  [spin_2t]="--mode static -c threads=2 --thread-wait spin"
  [passive_1t]="--mode static -c threads=1 --thread-wait passive"
)
order=(passive_2t spin_2t passive_1t)
run() {  # NAME ROUND
  # shellcheck disable=SC2086
  "$crmap" serve -w "$workload" --requests "$work/stream.jsonl" ${args[$1]} --json >"$work/$1.$2.json" 2>/dev/null
}
rotated_rounds "$rounds" run "${order[@]}"
python3 - "$work" "$rounds" "${order[@]}" <<'PY'
import json, statistics, sys
work, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = {}
for name in names:
    runs = [json.load(open(f"{work}/{name}.{r}.json")) for r in range(rounds)]
    med = lambda f: statistics.median(f(s) for s in runs)
    rows[name] = {k: med(f) for k, f in {
        "p50": lambda s: s["latency_us"]["p50"], "p95": lambda s: s["latency_us"]["p95"],
        "p99": lambda s: s["latency_us"]["p99"], "svc_p50": lambda s: s["service_us"]["p50"],
        "svc_p99": lambda s: s["service_us"]["p99"], "cpu": lambda s: s["cpu"]["process_s"],
        "warm": lambda s: s["cpu"]["keep_warm_s"], "n": lambda s: s["completed"]}.items()}
print(f"median over {rounds} interleaved rounds; latency and service in ms; cpu in s")
print(f"{'set-up':<12} {'p50':>7} {'p95':>7} {'p99':>7} {'svc p50':>8} {'svc p99':>8} {'cpu':>6} {'spin':>6} {'p99 vs passive_2t':>18}")
base = rows[names[0]]["p99"]
for name in names:
    r = rows[name]
    print(f"{name:<12} {r['p50']/1e3:7.2f} {r['p95']/1e3:7.2f} {r['p99']/1e3:7.2f} {r['svc_p50']/1e3:8.2f} "
          f"{r['svc_p99']/1e3:8.2f} {r['cpu']:6.2f} {r['warm']:6.2f} {base / r['p99']:17.2f}x")
PY
