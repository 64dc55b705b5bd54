#!/usr/bin/env bash
# Warming a scenario's support (`--warmup-shapes support`) against warming the first request only, with the
# LibTorch executor as the peer, on a workload whose non-summing dim varies (each new value is a new plan):
# bert_attention under bert_attention_short_to_long, triton's batcher for all three set-ups, rotated per round.
# Prints each run's latency quantiles, goodput within the SLO, compile waits and plan counts, then the medians
# over rounds and the ratios. Needs no tuning files.
# Usage: experiments/serve/warm_support.sh [ROUNDS] [SLO_MS]   (defaults 2, 50)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
# shellcheck source=experiments/serve/lib.sh
source "$root/experiments/serve/lib.sh"  # rotated_rounds
rounds=${1:-2}
slo=${2:-50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$crmap" version
declare -A setup=(
  [first]="--mode triton"
  [support]="--mode triton --warmup-shapes support --plan-memory-mb 4096 --max-plans 256"
  [libtorch]="--mode triton --executor libtorch"
)
names=(first support libtorch)
run() {  # NAME ROUND
  # shellcheck disable=SC2086
  "$crmap" serve -w bert_attention --requests bert_attention_short_to_long --slo-ms "$slo" ${setup[$1]} \
    --summary "$work/$1.$2.json" >/dev/null 2>"$work/$1.$2.err" ||
    { echo "warm_support.sh: $1 failed:" >&2; cat "$work/$1.$2.err" >&2; exit 1; }
}
rotated_rounds "$rounds" run "${names[@]}"
python3 - "$work" "$rounds" "${names[@]}" <<'PY'
import json, statistics, sys
work, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
med = {}
print("latency ms; goodput req/s within the SLO; compile wait p99 ms")
print(f"{'set-up':<9} {'round':>5} {'p50':>7} {'p95':>7} {'p99':>7} {'goodput':>8} {'cw p99':>7} {'compiled':>8} {'evicted':>7} {'warm ms':>8}")
for name in names:
    rows = []
    for r in range(rounds):
        s = json.load(open(f"{work}/{name}.{r}.json"))
        lat, plans = s["latency_us"], s.get("plans", {})
        row = (lat["p50"] / 1e3, lat["p95"] / 1e3, lat["p99"] / 1e3, s["goodput_rps"], s["compile_wait_us"]["p99"] / 1e3)
        rows.append(row)
        print(f"{name:<9} {r:>5} {row[0]:7.2f} {row[1]:7.1f} {row[2]:7.1f} {row[3]:8.1f} {row[4]:7.1f} "
              f"{plans.get('compiles', 0):8} {plans.get('evictions', 0):7} {s.get('warmup_ms', 0):8.0f}")
    med[name] = [statistics.median(c) for c in zip(*rows)]
print(f"median over {rounds} rounds")
for name in names:
    m = med[name]
    print(f"{name:<9} {'med':>5} {m[0]:7.2f} {m[1]:7.1f} {m[2]:7.1f} {m[3]:8.1f} {m[4]:7.1f}")
print(f"p99 first / support = {med['first'][2] / med['support'][2]:.2f}x; "
      f"p99 libtorch / support = {med['libtorch'][2] / med['support'][2]:.2f}x; "
      f"goodput support / first = {med['support'][3] / max(med['first'][3], 1e-9):.2f}x")
PY
