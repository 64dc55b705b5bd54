#!/usr/bin/env bash
# Goodput past the triton set-up's capacity: where does serving the policy's kernels keep requests within the SLO
# when Triton's usual set-up (default plan, max batch 16, 100 us) cannot? The Azure LLM code trace's
# GeneratedTokens on bert_ffn's tokens (skinny decode-like shapes, median 13 tokens), Poisson arrivals.
#
# First each set-up's capacity: its throughput with the whole trace arriving at once (time scale 1e-9). Then
# Poisson streams at LOADS x triton's capacity (default 0.8, 1.2 and 1.6: below it, between it and the policy's,
# and near the policy's), each served by every set-up in interleaved rounds (order rotated per round), under two
# queue policies: `none` (an unbounded queue: an overloaded set-up's latency grows for as long as the overload lasts,
# so its goodput depends on DURATION_S) and `shed` (--timeout-ms SLO_MS --timeout-action reject: what a deployment
# past its capacity does; a shed request counts against goodput, never for it).
# Set-ups and flags: serve_setups in lib.sh; --thread-wait spin for all.
# Needs experiments/serve/results/bert_ffn.<isa>.{jsonl,policy} from tune_ffn.sh on this ISA.
# Usage: [LOADS="0.8 1.2 1.6"] [SETUPS="triton static+b policy+b libtorch"] \
#        experiments/serve/goodput.sh [ROUNDS] [SLO_MS] [DURATION_S]   (default 2 rounds, 10 ms, 15 s)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
rounds=${1:-2}
slo_ms=${2:-10}
duration=${3:-15}
csv="$root/../shared/datasets/azure_llm_2023/AzureLLMInferenceTrace_code.csv"
# shellcheck source=experiments/serve/lib.sh
source "$root/experiments/serve/lib.sh"
ffn_tuning_files goodput.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$crmap" version
serve_setups "$db" "$policy"
read -r -a order <<<"${SETUPS:-triton static+b policy+b libtorch}"
read -r -a loads <<<"${LOADS:-0.8 1.2 1.6}"
for name in "${order[@]}"; do
  [ -n "${setup[$name]:-}" ] || { echo "goodput.sh: unknown set-up '$name'; allowed: ${!setup[*]}" >&2; exit 2; }
done
common=(-w bert_ffn --thread-wait spin --slo-ms "$slo_ms" --json)

echo "capacity (req/s, whole trace at once):"
declare -A capacity
for name in "${order[@]}"; do
  # shellcheck disable=SC2086
  "$crmap" serve "${common[@]}" --requests "$csv" --map tokens=GeneratedTokens --out-of-range clamp \
    --time-scale 1e-9 ${setup[$name]} >"$work/capacity.$name.json" 2>"$work/err" ||
    { echo "goodput.sh: capacity of $name failed:" >&2; cat "$work/err" >&2; exit 1; }
  capacity[$name]=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['throughput_rps'])" \
    "$work/capacity.$name.json")
  printf '  %-9s %8.1f\n' "$name" "${capacity[$name]}"
done
reference=${capacity[triton]:-${capacity[${order[0]}]}}

for load in "${loads[@]}"; do
  poisson_stream "$work/load$load.jsonl" "$(python3 -c "print($load * $reference)")" "$duration" 0 11
done
declare -A queue_policy=([none]="" [shed]="--timeout-ms $slo_ms --timeout-action reject")
for ((r = 0; r < rounds; ++r)); do
  for load in "${loads[@]}"; do
    for queue in none shed; do
      for ((i = 0; i < ${#order[@]}; ++i)); do
        name=${order[$(((i + r) % ${#order[@]}))]}
        # shellcheck disable=SC2086
        "$crmap" serve "${common[@]}" --requests "$work/load$load.jsonl" ${setup[$name]} ${queue_policy[$queue]} \
          >"$work/$name.$load.$queue.$r.json" 2>"$work/err" ||
          { echo "goodput.sh: $name at $load ($queue) failed:" >&2; cat "$work/err" >&2; exit 1; }
        echo "round $r load $load $queue: $name done" >&2
      done
    done
  done
done
for load in "${loads[@]}"; do
  for queue in none shed; do
    python3 "$root/experiments/serve/modes_table.py" \
      "$load x triton's capacity ($(python3 -c "print(round($load * $reference))") req/s), queue $queue" \
      "$slo_ms" "$rounds" "${order[*]}" "$work/{name}.$load.$queue.{round}.json"
  done
done
