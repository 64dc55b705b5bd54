#!/usr/bin/env bash
# Peer comparison: for 3 shapes per workload, the best plan found by measuring the whole plan space
# (`crmap sweep`) against LibTorch at its best (`--baseline libtorch`: eager with the BLAS as installed, again
# with the host's OpenBLAS core if the installed one is older, and LibTorch's oneDNN path for linear ops; f32,
# all cores), all in one final interleaved run, with the accuracy of each. Writes one sweep JSON per shape, then summary.json, table.md and peer_libtorch.png.
#
# usage: experiments/peer_libtorch/run.sh [--workloads "bert_ffn dlrm_mlp"] [--rounds 30] [--isa host|avx2] [--out DIR]
# (results in results/<the ISA crmap runs on>/ unless --out says otherwise)
set -euo pipefail
source "$(dirname "$0")/../common.sh"
results_by_isa=1
crmap_experiment_args "$root/experiments/peer_libtorch/results" "$@"
for workload in $workloads; do
  for dims in ${CRMAP_SHAPES[$workload]}; do
    file="$out/${workload}_${dims//[,=]/_}.json"
    echo "== sweep $workload $dims" >&2
    status=0
    "$crmap" sweep --workload "$workload" --dims "$dims" --baseline libtorch --rounds "$rounds" \
      --json --out "$file" >/dev/null || status=$?
    case $status in
      0) ;;
      3) echo "   no plan measurable at $dims (see $file)" >&2 ;;
      *) echo "   crmap sweep failed with status $status" >&2; exit $status ;;
    esac
  done
done
"$python" "$root/experiments/peer_libtorch/analyze.py" "$out"
