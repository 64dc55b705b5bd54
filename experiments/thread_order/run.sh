#!/usr/bin/env bash
# Does a config's figure depend on what ran before it? The case of issue 8 (4): a GPT-2-medium-sized FFN
# (1024 -> 4096 -> 1024) at 2 tokens, 2-thread plans interleaved with 1-thread ones. The same four configs are
# compared in two orders, each order twice (the repeat is the noise band: how much one order moves between
# runs), once with the harness as it is (an untimed call of the same config before every timed sample,
# --warm-calls 1) and once as it was before (--warm-calls 0). Writes one `crmap compare` JSON per run, then
# summary.json and table.md (analyze.py).
#
# usage: experiments/thread_order/run.sh [--rounds 50] [--dims "tokens=2 tokens=24"] [--out DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../common.sh"
rounds=50
dims="tokens=2 tokens=24"
out="$here/results"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --dims) dims="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--dims \"tokens=N ...\"] [--out DIR]" >&2; exit 2 ;;
  esac
done
crmap_require_built
mkdir -p "$out"
"$crmap" version > "$out/version.txt"
workload="$here/gpt2_medium_ffn.json"
# The anchor (default: 2 threads) stays first; the others run in two orders.
forward=(-c default -c "weights=packed" -c "threads=1" -c "threads=1;weights=packed")
reverse=(-c default -c "threads=1;weights=packed" -c "threads=1" -c "weights=packed")
for shape in $dims; do
  for warm in 1 0; do
    for repeat in 1 2; do
      for order in forward reverse; do
        if [ "$order" = forward ]; then configs=("${forward[@]}"); else configs=("${reverse[@]}"); fi
        file="$out/${shape//=/_}_warm${warm}_${order}_${repeat}.json"
        echo "== $shape, warm-calls $warm, $order order, run $repeat" >&2
        "$crmap" compare --workload "$workload" --dims "$shape" "${configs[@]}" --rounds "$rounds" \
          --warm-calls "$warm" --cold-samples 10 --json --out "$file" >/dev/null
      done
    done
  done
done
"$python" "$here/analyze.py" "$out" $dims
