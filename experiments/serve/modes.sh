#!/usr/bin/env bash
# Every serving mode and the LibTorch executor, side by side on one request stream: the Azure LLM code trace
# (../shared/datasets/azure_llm_2023, 8,819 requests) with GeneratedTokens mapped onto bert_ffn's tokens (skinny
# decode-like shapes: median 13 tokens; a batch sums them), replayed open-loop at ~50% and ~85% of the default
# mode's capacity, and the same stream at 50% with a x4 burst (2 s at 4x the rate) in its middle.
#
# Capacity: the default mode's throughput when every request arrives at once (measured here first). The
# trace's time scale is then chosen so that its mean arrival rate is LOAD x capacity.
# Set-ups (interleaved over ROUNDS rounds, order rotated per round; figures are medians over rounds):
#   default, triton (default plan, max batch 16, 100 us), static (static plan of the tuning DB), policy (through
#   libcrmap_hook), oracle (best tuned config of the nearest tuned shape), libtorch (LibTorch eager with
#   triton's batcher, TorchServe-style); every one with --thread-wait spin for its team, as a latency-bound
#   server would run (experiments/serve/thread_wait.sh measures passive against spin). "+b": with triton's
#   batcher (see below).
# Needs experiments/serve/results/bert_ffn.<isa>.{jsonl,policy} from tune_ffn.sh on this ISA.
# Prints per load: p50/p95/p99 latency, goodput within SLO_MS, CPU, and the ratios the issue's targets name.
# The trace's arrivals come in minute-scale bursts (a "50%" mean rate still overloads the server for seconds), so
# the same token sizes are also replayed with Poisson arrivals at 50% and 85% (smooth50, smooth85): there the
# kernels and batch limits decide, not the bursts.
# Usage: [LOADS="50 85 burst smooth50 smooth85"] experiments/serve/modes.sh [ROUNDS] [SLO_MS] [DURATION_S]
#        (default all five loads, 3 rounds, 10 ms, 12 s per run)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
rounds=${1:-3}
slo_ms=${2:-10}
duration=${3:-12}
csv="$root/../shared/datasets/azure_llm_2023/AzureLLMInferenceTrace_code.csv"
# shellcheck source=experiments/serve/lib.sh
source "$root/experiments/serve/lib.sh"
ffn_tuning_files modes.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$crmap" version
common=(-w bert_ffn --thread-wait spin --slo-ms "$slo_ms" --json)
csv_args=(--requests "$csv" --map tokens=GeneratedTokens --out-of-range clamp)

# Capacity of the default mode: the whole trace at once (time scale 1e-9); the trace's own mean arrival rate.
capacity=$(default_capacity "$work/capacity.json")
trace_rate=$(python3 - "$csv" <<'PY'
import csv, sys
from datetime import datetime
rows = list(csv.DictReader(open(sys.argv[1])))
t = [datetime.strptime(r["TIMESTAMP"][:26], "%Y-%m-%d %H:%M:%S.%f") for r in rows]
print(len(rows) / (t[-1] - t[0]).total_seconds())
PY
)
echo "default-mode capacity ${capacity} req/s; the trace's own rate ${trace_rate} req/s" >&2

# The burst stream: the trace at 50% load as crmap.trace JSONL, the arrivals of the 2 s starting at 40% of its
# length compressed 4x (the rest shifted back so that it keeps its rate).
scale50=$(python3 -c "print($trace_rate / (0.5 * $capacity))")
python3 - "$csv" "$work/burst.jsonl" "$scale50" "$duration" <<'PY'
import csv, json, sys
from datetime import datetime
rows = list(csv.DictReader(open(sys.argv[1])))
scale, duration = float(sys.argv[3]), float(sys.argv[4]) * 1e6
t0 = datetime.strptime(rows[0]["TIMESTAMP"][:26], "%Y-%m-%d %H:%M:%S.%f")
times = [(datetime.strptime(r["TIMESTAMP"][:26], "%Y-%m-%d %H:%M:%S.%f") - t0).total_seconds() * 1e6 * scale
         for r in rows]
end = min(times[-1], duration)
start, length = 0.4 * end, 2e6
out = []
for t, r in zip(times, rows):
    if t > end: break
    if start <= t < start + length: u = start + (t - start) / 4
    elif t >= start + length: u = t - 0.75 * length
    else: u = t
    tokens = min(max(int(r["GeneratedTokens"]), 1), 4096)
    out.append({"t_us": round(u, 1), "dims": {"tokens": tokens}, "stream": 0, "phase": 0})
with open(sys.argv[2], "w") as f:
    for o in out: f.write(json.dumps(o) + "\n")
PY

# The smoothed streams: the trace's token sizes in order, Poisson arrivals at LOAD x capacity.
for load in 50 85; do
  poisson_stream "$work/smooth$load.jsonl" "$(python3 -c "print($load / 100 * $capacity)")" "$duration" 0 7
done

# `policy` alone shows the policy's own (untuned) batch limits; tune_runtime.sh tunes them through serve and
# compares the tuned policy on a held-out stream. The set-ups and their flags: serve_setups in lib.sh.
serve_setups "$db" "$policy"
order=(default triton static+b policy policy+b oracle+b libtorch)
read -r -a loads <<<"${LOADS:-50 85 burst smooth50 smooth85}"
for ((r = 0; r < rounds; ++r)); do
  for load in "${loads[@]}"; do
    for ((i = 0; i < ${#order[@]}; ++i)); do
      name=${order[$(((i + r) % ${#order[@]}))]}
      if [ "$load" = burst ] || [[ $load == smooth* ]]; then
        source_args=(--requests "$work/$load.jsonl")
      else
        scale=$(python3 -c "print($trace_rate / ($load / 100 * $capacity))")
        source_args=("${csv_args[@]}" --time-scale "$scale" --duration "$duration")
      fi
      # shellcheck disable=SC2086
      "$crmap" serve "${common[@]}" "${source_args[@]}" ${setup[$name]} >"$work/$name.$load.$r.json" 2>"$work/err" ||
        { echo "modes.sh: $name at $load failed:" >&2; cat "$work/err" >&2; exit 1; }
      echo "round $r load $load: $name done" >&2
    done
  done
done
for load in "${loads[@]}"; do
  case $load in
    burst) title="x4 burst (2 s at 4x) on 50% load" ;;
    smooth*) title="${load#smooth}% of default capacity, Poisson arrivals, the trace's token sizes" ;;
    *) title="$load% of default capacity" ;;
  esac
  python3 "$root/experiments/serve/modes_table.py" "$title" "$slo_ms" "$rounds" "${order[*]}" \
    "$work/{name}.$load.{round}.json"
done
