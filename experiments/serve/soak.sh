#!/usr/bin/env bash
# Soak: bert_ffn served in policy mode at LOAD% of the default mode's capacity for MINUTES minutes, the policy
# file replaced every minute (alternating between two copies of the policy whose runtime knobs differ, so each
# reload changes what the hook answers; serve reloads it through --reload-on-change). Every 10 s the process's
# resident memory (VmRSS) and open file descriptors are sampled from /proc; the telemetry gives p99 per minute.
# Prints: RSS and fds over time, growth from minute 2 (after the warm-up minute), p99 per minute with its median
# and range, reloads done and failed, and whether every request was served.
# Stream: the Azure code trace's token sizes (GeneratedTokens) cycled in order, Poisson arrivals.
# Needs experiments/serve/results/bert_ffn.<isa>.policy (tune_ffn.sh).
# Serve warms up every plan bucket before the clock starts (--warmup-shapes buckets; WARMUP_SHAPES= to warm up the
# first request's plan only), so that resident memory after the warm-up is the runtime's, not plans compiled late.
# Usage: [CHUNK=N] [WARMUP_SHAPES=...] experiments/serve/soak.sh [MINUTES] [LOAD]   (default 30 minutes, 85%;
# CHUNK: serve --chunk N, samples then go to soak_chunk<N>_samples.<isa>.csv)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
crmap="$root/build/crmap"
minutes=${1:-30}
load=${2:-85}
chunk=${CHUNK:-0}
warmup_shapes=${WARMUP_SHAPES-buckets}
csv="$root/../shared/datasets/azure_llm_2023/AzureLLMInferenceTrace_code.csv"
isa=$("$crmap" version | sed -n 's/.*isa \([a-z0-9_]*\).*/\1/p')
policy="$root/experiments/serve/results/bert_ffn.$isa.policy"
[ -s "$policy" ] || { echo "soak.sh: $policy missing: run experiments/serve/tune_ffn.sh first" >&2; exit 2; }
# shellcheck source=experiments/serve/lib.sh
source "$root/experiments/serve/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$crmap" version

capacity=$(default_capacity "$work/capacity.json")
rate=$(python3 -c "print($load / 100 * $capacity)")
echo "default-mode capacity $capacity req/s; soak at $load%: $rate req/s for $minutes min" >&2
poisson_stream "$work/soak.jsonl" "$rate" "$((minutes * 60))" 0 11
# The two policies a reload alternates between: the same kernels, runtime knobs batch 16 / 200 us and
# batch 64 / 200 us (both keep up with the load; batch 1 would not).
for pair in a:16 b:64; do
  "$crmap" tune -w bert_ffn --requests "$work/soak.jsonl" --duration 1 --mode policy --policy "$policy" \
    --max-batch "${pair#*:}" --queue-delay-us 200 --placement shared --rounds 1 \
    --write-policy "$work/${pair%%:*}.policy" >/dev/null 2>&1
done
cp "$work/a.policy" "$work/served.policy"

serve_flags=()
samples_name=soak_samples
if [ "$chunk" -gt 0 ]; then serve_flags=(--chunk "$chunk"); samples_name=soak_chunk${chunk}_samples; fi
[ -n "$warmup_shapes" ] && serve_flags+=(--warmup-shapes "$warmup_shapes")
echo "serving with: ${serve_flags[*]:-(defaults)}" >&2
"$crmap" serve -w bert_ffn --thread-wait spin --requests "$work/soak.jsonl" --mode policy \
  --policy "$work/served.policy" --reload-on-change --slo-ms 10 ${serve_flags[@]+"${serve_flags[@]}"} \
  --telemetry "$work/telemetry.jsonl" --summary "$work/summary.json" >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
echo "t_s,rss_kib,fds" >"$work/samples.csv"
start=$(date +%s)
next_reload=60
flip=b
while kill -0 "$pid" 2>/dev/null; do
  now=$(($(date +%s) - start))
  rss=$(sed -n 's/^VmRSS:\s*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null || true)
  fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l || true)
  [ -n "$rss" ] && echo "$now,$rss,$fds" >>"$work/samples.csv"
  if [ "$now" -ge "$next_reload" ]; then
    cp "$work/$flip.policy" "$work/served.policy.tmp" && mv -f "$work/served.policy.tmp" "$work/served.policy"
    [ "$flip" = b ] && flip=a || flip=b
    next_reload=$((next_reload + 60))
  fi
  sleep 10
done
wait "$pid" || { echo "soak.sh: serve failed:" >&2; cat "$work/serve.err" >&2; exit 1; }
cp "$work/samples.csv" "$root/experiments/serve/results/$samples_name.$isa.csv"
python3 - "$work" "$minutes" <<'PY'
import csv, json, statistics, sys
work = sys.argv[1]
s = json.load(open(f"{work}/summary.json"))
samples = [(int(r["t_s"]), int(r["rss_kib"]), int(r["fds"])) for r in csv.DictReader(open(f"{work}/samples.csv"))]
print(f"requests: {s['released']} released, {s['completed']} completed, {sum(s['rejected'].values())} rejected, "
      f"{s['failed']} failed; hook reloads {s['hook']['reloads']}, failed {s['hook']['reload_failures']}")
print(f"latency p50 {s['latency_us']['p50']/1e3:.2f} p95 {s['latency_us']['p95']/1e3:.2f} p99 {s['latency_us']['p99']/1e3:.2f} ms; "
      f"goodput {s['goodput_rps']:.1f} req/s of {s['throughput_rps']:.1f}")
print("\nt (s)   RSS (MiB)  fds")
for t, rss, fds in samples[::6]: print(f"{t:5d} {rss/1024:10.1f} {fds:4d}")
# While serving: after the warm-up minute (the plans of the common shapes compiled) and before the run's end
# (the process then frees its records and exits).
serving = [x for x in samples if 120 <= x[0] <= int(sys.argv[2]) * 60]
if len(serving) >= 2:
    first, last = serving[0], serving[-1]
    peak = max(x[1] for x in serving)
    slope = (last[1] - first[1]) / 1024 / ((last[0] - first[0]) / 60)
    print(f"\nwhile serving, from 2 min: RSS {first[1]/1024:.1f} -> {last[1]/1024:.1f} MiB "
          f"({100 * (last[1] - first[1]) / first[1]:+.2f}%, {slope:.2f} MiB/min, peak {peak/1024:.1f}); "
          f"fds {first[2]} -> {last[2]} (max {max(x[2] for x in serving)})")
t0 = None
minute = {}
with open(f"{work}/telemetry.jsonl") as f:
    for line in f:
        r = json.loads(line)
        if r["outcome"] != "completed": continue
        minute.setdefault(int(r["end_us"] // 60e6), []).append(r["latency_us"])
def p99(v):
    v = sorted(v); return v[min(len(v) - 1, max(0, int(0.99 * len(v) + 0.999999) - 1))]
per = [(m, len(v), p99(v)) for m, v in sorted(minute.items())]
print("\nminute  requests  p99 ms")
for m, n, p in per: print(f"{m:6d} {n:9d} {p/1e3:7.2f}")
full = [p for m, n, p in per[1:-1]]  # the first and the last minute are partial
if full:
    print(f"p99 per full minute: median {statistics.median(full)/1e3:.2f} ms, range {min(full)/1e3:.2f}..{max(full)/1e3:.2f} ms")
PY
