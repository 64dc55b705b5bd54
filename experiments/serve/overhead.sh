#!/usr/bin/env bash
# The serving runtime's own cost per batch (summary field overhead_us: observe, records and telemetry, expiry,
# batching, both decisions, locks — kernel time excluded), next to the kernel time (service_us), on bert_ffn
# under the built-in scenario bert_ffn_chat_to_docs for 10 s: modes default and triton, telemetry off and on,
# interleaved over ROUNDS rounds; then a burst of 3,000 requests all queued at t=0 on the small
# tests/data/tiny_mlp.json (kernels of ~10-25 us, so the runtime's own path is what is measured) at 1 and 2
# threads. Prints the median over rounds of each quantile.
# Usage: experiments/serve/overhead.sh [ROUNDS]   (default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
# shellcheck source=experiments/serve/lib.sh
source "$root/experiments/serve/lib.sh"  # rotated_rounds
rounds=${1:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$crmap" version
setups=("default" "default+telemetry" "triton" "triton+telemetry")
run() {  # NAME ROUND
  local extra=()
  [[ $1 == *telemetry ]] && extra=(--telemetry "$work/t.jsonl")
  "$crmap" serve -w bert_ffn --requests bert_ffn_chat_to_docs --duration 10 --mode "${1%%+*}" "${extra[@]}" --json \
    >"$work/$1.$2.json" 2>/dev/null
}
rotated_rounds "$rounds" run "${setups[@]}"
python3 - "$work/burst.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        f.write(json.dumps({"t_us": 0.0, "dims": {"batch": 1 + i % 8}, "stream": 0, "phase": 0}) + "\n")
PY
for ((r = 0; r < rounds; ++r)); do
  for threads in 1 2; do
    "$crmap" serve -w "$root/tests/data/tiny_mlp.json" --requests "$work/burst.jsonl" --mode static \
      -c "threads=$threads;batch=1" --json >"$work/burst-${threads}t.$r.json" 2>/dev/null
  done
done
setups+=("burst-1t" "burst-2t")
python3 - "$work" "$rounds" "${setups[@]}" <<'PY'
import json, statistics, sys
work, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print(f"median over {rounds} interleaved rounds, microseconds")
print(f"{'set-up':<18} {'batches':>7} {'ovh p50':>8} {'ovh p95':>8} {'ovh p99':>8} {'svc p50':>8} {'svc p99':>8} {'ovh/svc p50':>11}")
for name in names:
    runs = [json.load(open(f"{work}/{name}.{r}.json")) for r in range(rounds)]
    m = lambda f: statistics.median(f(s) for s in runs)
    o50, o95, o99 = (m(lambda s, q=q: s["overhead_us"][q]) for q in ("p50", "p95", "p99"))
    s50, s99 = (m(lambda s, q=q: s["service_us"][q]) for q in ("p50", "p99"))
    print(f"{name:<18} {m(lambda s: s['batches']):7.0f} {o50:8.1f} {o95:8.1f} {o99:8.1f} {s50:8.0f} {s99:8.0f} {100*o50/s50:10.2f}%")
PY
