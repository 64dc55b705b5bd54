#!/usr/bin/env bash
# Knob effects: for 3 shapes per workload, every single-knob change of the default config (and the
# all-fused / all-fused+packed combinations) measured against the default in ONE interleaved run per shape.
# Writes one `crmap compare` JSON per shape, then summary.json, table.md and knob_effects.png.
#
# usage: experiments/knob_effects/run.sh [--workloads "bert_ffn dlrm_mlp"] [--rounds 30] [--out DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/experiments/shapes.sh"
crmap="$root/build/crmap"
workloads="$CRMAP_WORKLOADS"
rounds=30
out="$root/experiments/knob_effects/out/latest"
while [ $# -gt 0 ]; do
  case "$1" in
    --workloads) workloads="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--workloads LIST] [--rounds N] [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -x "$crmap" ] || { echo "build crmap first: scripts/build.sh" >&2; exit 2; }
python=/usr/bin/python3  # Debian's, with python3-matplotlib
mkdir -p "$out"

for workload in $workloads; do
  [ -n "${CRMAP_SHAPES[$workload]:-}" ] || { echo "no shapes listed for $workload in experiments/shapes.sh" >&2; exit 2; }
  "$crmap" space --workload "$workload" --json > "$out/${workload}_space.json"
  mapfile -t configs < <("$python" "$root/experiments/knob_effects/configs.py" "$out/${workload}_space.json")
  args=()
  for config in "${configs[@]}"; do args+=(--config "$config"); done
  for dims in ${CRMAP_SHAPES[$workload]}; do
    file="$out/${workload}_${dims//[,=]/_}.json"
    echo "== $workload $dims: ${#configs[@]} configs, $rounds interleaved rounds" >&2
    "$crmap" compare --workload "$workload" --dims "$dims" "${args[@]}" --rounds "$rounds" --json --out "$file" >/dev/null
  done
done
"$python" "$root/experiments/knob_effects/analyze.py" "$out"
