#!/usr/bin/env bash
# Knob effects: for 3 shapes per workload, every single-knob change of the default config (and the
# all-fused / all-fused+packed combinations) measured against the default in ONE interleaved run per shape.
# Writes one `crmap compare` JSON per shape, then summary.json, table.md and knob_effects.png.
#
# usage: experiments/knob_effects/run.sh [--workloads "bert_ffn dlrm_mlp"] [--rounds 30] [--isa host|avx2] [--out DIR]
# (results in results/<the ISA crmap runs on>/ unless --out says otherwise)
set -euo pipefail
source "$(dirname "$0")/../common.sh"
results_by_isa=1
crmap_experiment_args "$root/experiments/knob_effects/results" "$@"

for workload in $workloads; do
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
