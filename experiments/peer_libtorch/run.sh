#!/usr/bin/env bash
# Peer comparison: for 3 shapes per workload, the best plan found by measuring the whole plan space
# (`crmap sweep`) against LibTorch eager (f32, OpenBLAS, all cores), both in one final interleaved run, with
# the accuracy of each. Writes one sweep JSON per shape, then summary.json, table.md and peer_libtorch.png.
#
# usage: experiments/peer_libtorch/run.sh [--workloads "bert_ffn dlrm_mlp"] [--rounds 30] [--out DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/experiments/shapes.sh"
crmap="$root/build/crmap"
workloads="$CRMAP_WORKLOADS"
rounds=30
out="$root/experiments/peer_libtorch/out/latest"
while [ $# -gt 0 ]; do
  case "$1" in
    --workloads) workloads="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--workloads LIST] [--rounds N] [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -x "$crmap" ] || { echo "build crmap first: scripts/build.sh" >&2; exit 2; }
mkdir -p "$out"
for workload in $workloads; do
  for dims in ${CRMAP_SHAPES[$workload]}; do
    file="$out/${workload}_${dims//[,=]/_}.json"
    echo "== sweep $workload $dims" >&2
    "$crmap" sweep --workload "$workload" --dims "$dims" --baseline libtorch --rounds "$rounds" \
      --json --out "$file" >/dev/null || echo "   (no plan measurable: see $file)" >&2
  done
done
/usr/bin/python3 "$root/experiments/peer_libtorch/analyze.py" "$out"
