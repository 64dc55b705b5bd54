#!/usr/bin/env bash
# Every serving mode and the LibTorch executor on the built-in drift scenario of each built-in workload (`crmap
# workloads` lists them: two to four streams whose shape distribution changes between phases), side by side.
# Per workload, first a small kernel campaign (rl agent, BUDGET measurements over shapes drawn from each of the
# workload's distributions, then `crmap train`), kept in experiments/serve/results/<workload>.<isa>.scenarios.
# {jsonl,policy} (a database there is resumed; delete both to tune again); then the scenario (requests drawn with
# --seed 1, the same for every set-up) served by: default, triton (default plan, batch 16, 100 us), static+b (static
# plan of the DB, triton's batcher), policy (the policy's own runtime knobs: untuned, batch 1), policy+b, oracle+b
# (best tuned config of the nearest tuned shape), libtorch (LibTorch eager, triton's batcher) and, when MODES names
# it, policy+b+w (policy+b with every plan bucket of the scenario's distributions warmed first: --warmup-shapes
# support); every one with --thread-wait spin.
# Interleaved over ROUNDS rounds (order rotated per round); figures are medians over rounds.
# Prints per workload: p50/p95/p99 latency, goodput within SLO_MS, rejections, and the ratios the issue's targets
# name (libtorch p99 / policy+b p99, policy+b goodput / triton, policy+b p99 / oracle+b p99).
# Usage: [WORKLOADS="bert_ffn dlrm_mlp ..."] [MODES="default triton ..."] experiments/serve/scenarios.sh [ROUNDS]
#        [BUDGET] [SLO_MS]   (default every built-in workload, every set-up above, 2 rounds, 60 measurements,
#        50 ms; a ratio is printed when MODES keeps both of its set-ups)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
rounds=${1:-2}
budget=${2:-60}
slo_ms=${3:-50}
isa=$("$crmap" version | sed -n 's/.*isa \([a-z0-9_]*\).*/\1/p')
results="$root/experiments/serve/results"
mkdir -p "$results"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$crmap" version
"$crmap" workloads --json >"$work/workloads.json"
read -r -a workloads <<<"${WORKLOADS:-$(python3 -c "
import json, sys; print(' '.join(w['name'] for w in json.load(open(sys.argv[1]))))" "$work/workloads.json")}"

# shellcheck source=experiments/serve/lib.sh
source "$root/experiments/serve/lib.sh"
serve_setups "" ""  # the set-ups' names, to check MODES
read -r -a order <<<"${MODES:-default triton static+b policy policy+b oracle+b libtorch}"
for name in "${order[@]}"; do
  [ -n "${setup[$name]:-}" ] || { echo "scenarios.sh: unknown set-up '$name' in MODES; known: ${!setup[*]}" >&2; exit 2; }
done

for w in "${workloads[@]}"; do
  db="$results/$w.$isa.scenarios.jsonl"
  policy="$results/$w.$isa.scenarios.policy"
  [ -s "$policy" ] && continue
  read -r -a distributions < <(python3 -c "
import json, sys
for w in json.load(open(sys.argv[1])):
    if w['name'] == sys.argv[2]: print(' '.join(d['name'] for d in w['distributions']))" "$work/workloads.json" "$w")
  echo "== tuning $w over ${distributions[*]} ($budget measurements)" >&2
  per_distribution=$((budget / ${#distributions[@]} > 0 ? budget / ${#distributions[@]} : 1))
  for d in "${distributions[@]}"; do
    resume=()
    grep -q "\"serve-$d\"" "$db" 2>/dev/null && resume=(--resume)
    "$crmap" tune -w "$w" --shapes "$d" --num-shapes 4 --agent rl --budget "$per_distribution" \
      --campaign "serve-$d" --no-confirm --db "$db" ${resume[@]+"${resume[@]}"} >/dev/null
  done
  "$crmap" train --db "$db" -o "$policy" >/dev/null
done

for ((r = 0; r < rounds; ++r)); do
  for w in "${workloads[@]}"; do
    db="$results/$w.$isa.scenarios.jsonl"
    policy="$results/$w.$isa.scenarios.policy"
    scenario=$(python3 -c "
import json, sys
for w in json.load(open(sys.argv[1])):
    if w['name'] == sys.argv[2]: print(w['scenarios'][0]['name'])" "$work/workloads.json" "$w")
    serve_setups "$db" "$policy"
    for ((i = 0; i < ${#order[@]}; ++i)); do
      name=${order[$(((i + r) % ${#order[@]}))]}
      # shellcheck disable=SC2086
      "$crmap" serve -w "$w" --requests "$scenario" --seed 1 --thread-wait spin --slo-ms "$slo_ms" --json \
        ${setup[$name]} >"$work/$w.$name.$r.json" 2>"$work/err" ||
        { echo "scenarios.sh: $w $name failed:" >&2; cat "$work/err" >&2; exit 1; }
      echo "round $r $w ($scenario): $name done" >&2
    done
  done
done
for w in "${workloads[@]}"; do
  title="$w: $(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['source']['description'])" \
    "$work/$w.${order[0]}.0.json")"
  python3 "$root/experiments/serve/modes_table.py" "$title" "$slo_ms" "$rounds" "${order[*]}" \
    "$work/$w.{name}.{round}.json"
done
