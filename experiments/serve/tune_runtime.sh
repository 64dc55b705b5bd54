#!/usr/bin/env bash
# Runtime knobs tuned under load, then checked on a stream the tuning never saw.
#
# 1. Tune: `crmap tune --requests` serves bert_ffn's policy (tune_ffn.sh) on a tuning stream — the Azure code
#    trace's token sizes (GeneratedTokens, in order from row 0) with Poisson arrivals at LOAD% of the default
#    mode's capacity — once per set-up of max batch BATCHES x queue delay DELAYS us x placement PLACEMENTS x
#    chunk CHUNKS (environment; defaults {1,4,16,64} x {0,200,1000} x {shared,per_core} x {0}), TUNE_ROUNDS
#    interleaved rounds, objective p99; the best set-up is written into a copy of the policy (runtime knobs;
#    --write-policy; its chunk, not a policy knob, is passed to serve as --chunk).
# 2. Check: on a held-out stream (the trace's token sizes from row 4000, another arrival seed, same load), modes
#    default, triton, policy (its untuned runtime knobs: batch 1), policy+b (triton's batcher over the policy's
#    kernels), policy+t (the tuned policy: its runtime knobs, and the tuned chunk), libtorch (LibTorch eager with
#    triton's batcher) and, when the tuned chunk is not 0, triton+c and libtorch+c (the same with that chunk),
#    CHECK_ROUNDS interleaved rounds (order rotated), medians over the rounds.
# Every set-up runs with --thread-wait spin (experiments/serve/thread_wait.sh). Needs
# experiments/serve/results/bert_ffn.<isa>.policy from tune_ffn.sh on this ISA.
# Usage: [BATCHES=..] [DELAYS=..] [PLACEMENTS=..] [CHUNKS=..] experiments/serve/tune_runtime.sh [LOAD] [TUNE_ROUNDS]
#        [CHECK_ROUNDS] [DURATION_S]   (85 3 3 10)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
load=${1:-85}
tune_rounds=${2:-3}
check_rounds=${3:-3}
duration=${4:-10}
slo_ms=10
csv="$root/../shared/datasets/azure_llm_2023/AzureLLMInferenceTrace_code.csv"
isa=$("$crmap" version | sed -n 's/.*isa \([a-z0-9_]*\).*/\1/p')
policy="$root/experiments/serve/results/bert_ffn.$isa.policy"
[ -s "$policy" ] || { echo "tune_runtime.sh: $policy missing: run experiments/serve/tune_ffn.sh first" >&2; exit 2; }
# shellcheck source=experiments/serve/lib.sh
source "$root/experiments/serve/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$crmap" version

# Capacity of the default mode: the whole trace at once.
capacity=$(default_capacity "$work/capacity.json")
rate=$(python3 -c "print($load / 100 * $capacity)")
echo "default-mode capacity $capacity req/s; streams at $load%: $rate req/s for $duration s" >&2

poisson_stream "$work/tune.jsonl" "$rate" "$duration" 0 7
poisson_stream "$work/check.jsonl" "$rate" "$duration" 4000 8

echo "== tuning the runtime on the tuning stream ($tune_rounds rounds)" >&2
"$crmap" tune -w bert_ffn --requests "$work/tune.jsonl" --mode policy --policy "$policy" --thread-wait spin \
  --max-batch "${BATCHES:-1,4,16,64}" --queue-delay-us "${DELAYS:-0,200,1000}" \
  --placement "${PLACEMENTS:-shared,per_core}" --chunk "${CHUNKS:-0}" --rounds "$tune_rounds" \
  --objective p99 --slo-ms "$slo_ms" --write-policy "$work/tuned.policy" --summary "$work/tuning.json"
read -r placement chunk < <(python3 -c "
import json; d = json.load(open('$work/tuning.json')); b = d['settings'][d['best_index']]
print(b['placement'], b['chunk'])")

echo "== the held-out stream ($check_rounds rounds)" >&2
serve_setups "" "$policy"  # lib.sh; and the tuned policy, and the peers with its chunk:
setup[policy+t]="--mode policy --policy $work/tuned.policy --chunk $chunk"
setup[triton+c]="--mode triton --chunk $chunk"
setup[libtorch+c]="--mode triton --executor libtorch --chunk $chunk"
order=(default triton policy policy+b policy+t libtorch)
[ "$chunk" != 0 ] && order+=(triton+c libtorch+c)
echo "tuned: placement $placement (from the policy), chunk $chunk" >&2
for ((r = 0; r < check_rounds; ++r)); do
  for ((i = 0; i < ${#order[@]}; ++i)); do
    name=${order[$(((i + r) % ${#order[@]}))]}
    # shellcheck disable=SC2086
    "$crmap" serve -w bert_ffn --thread-wait spin --slo-ms "$slo_ms" --json --requests "$work/check.jsonl" \
      ${setup[$name]} >"$work/$name.$r.json" 2>"$work/err" ||
      { echo "tune_runtime.sh: $name failed:" >&2; cat "$work/err" >&2; exit 1; }
  done
  echo "round $r done" >&2
done
python3 - "$work" "$check_rounds" "$slo_ms" "${order[*]}" <<'PY'
import json, statistics, sys
work, rounds, slo, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split()
def med(runs, f): return statistics.median(f(s) for s in runs)
rows = {}
for name in names:
    runs = [json.load(open(f"{work}/{name}.{r}.json")) for r in range(rounds)]
    rows[name] = {k: med(runs, f) for k, f in {
        "n": lambda s: s["released"], "p50": lambda s: s["latency_us"]["p50"], "p95": lambda s: s["latency_us"]["p95"],
        "p99": lambda s: s["latency_us"]["p99"], "good": lambda s: s["goodput_rps"],
        "thr": lambda s: s["throughput_rps"], "batch": lambda s: s["mean_batch_size"],
        "cpu": lambda s: s["cpu"]["process_s"]}.items()}
    rows[name]["spread"] = (min(s["latency_us"]["p99"] for s in runs), max(s["latency_us"]["p99"] for s in runs))
print(f"\nheld-out stream: median over {rounds} interleaved rounds; latency in ms, goodput within {slo} ms in req/s")
print(f"{'mode':<10} {'released':>8} {'p50':>7} {'p95':>7} {'p99':>8} {'p99 rounds':>15} {'goodput':>8} {'thrpt':>7} {'batch':>6} {'cpu s':>6} {'p99 vs policy+t':>15}")
for name in names:
    r = rows[name]
    print(f"{name:<10} {r['n']:8.0f} {r['p50']/1e3:7.2f} {r['p95']/1e3:7.2f} {r['p99']/1e3:8.2f} "
          f"{r['spread'][0]/1e3:7.1f}..{r['spread'][1]/1e3:<6.1f} {r['good']:8.1f} {r['thr']:7.1f} {r['batch']:6.2f} "
          f"{r['cpu']:6.2f} {r['p99'] / rows['policy+t']['p99']:14.2f}x")
t = rows["policy+t"]
print(f"policy+t: p99 {rows['policy']['p99'] / t['p99']:.2f}x better than the untuned policy, "
      f"{rows['policy+b']['p99'] / t['p99']:.2f}x than triton's batcher over the same kernels, "
      f"{rows['libtorch']['p99'] / t['p99']:.2f}x than libtorch; goodput {t['good'] / max(rows['triton']['good'], 1e-9):.2f}x triton's")
PY
