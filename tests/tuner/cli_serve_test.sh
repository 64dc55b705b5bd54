#!/usr/bin/env bash
# crmap serve end to end on real oneDNN plans (tests/data/tiny_mlp.json, small streams): every released request
# ends exactly once (completed + rejected + failed = released), the telemetry has one parsable line per request
# and agrees with the summary, CSV mapping and out-of-range handling are counted, every mode runs, bad input is
# exit 2 naming the problem, and SIGTERM stops arrivals and still writes the outputs.
# Usage: cli_serve_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_serve "${1:-}"
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
TINY="$SOURCE_DIR/tests/data/tiny_mlp.json"

# A trace of 400 requests over ~0.4 s on two streams, and a CSV in the Azure schema (5 of its rows beyond the
# workload's batch range of [1, 64]).
"$python" - "$WORK" <<'PY'
import json, random, sys
work = sys.argv[1]
rng = random.Random(4)
t = 0.0
with open(f"{work}/trace.jsonl", "w") as f:
    for i in range(400):
        t += rng.expovariate(1 / 1000)
        f.write(json.dumps({"t_us": round(t, 1), "dims": {"batch": rng.randint(1, 16)}, "stream": i % 2, "phase": 0}) + "\n")
with open(f"{work}/azure.csv", "w") as f:
    f.write("TIMESTAMP,ContextTokens,GeneratedTokens\n")
    for i in range(60):
        tokens = 100 + i if i % 12 == 0 else rng.randint(1, 64)
        f.write(f"2023-11-16 18:17:{i // 10:02d}.{i % 10}000000,{tokens},{rng.randint(1, 30)}\n")
PY

# Waits (at most a minute) until the telemetry file $1 has a line: serve is serving, its signal handlers are in
# place (a signal before them would take its default action).
wait_serving() {
  for _ in $(seq 600); do
    [[ -s "$1" ]] && return 0
    sleep 0.1
  done
  return 1
}

# Every released request ends once; telemetry and summary agree.
check_run() {
  local summary=$1 telemetry=$2 expected=$3
  "$python" - "$summary" "$telemetry" "$expected" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
expected = int(sys.argv[3])
rejected = sum(s["rejected"].values())
problems = []
if s["released"] + s["not_released"] != expected: problems.append(f"released {s['released']} + not released {s['not_released']} != {expected}")
if s["completed"] + rejected + s["failed"] != s["released"]: problems.append("completed + rejected + failed != released")
if len(lines) != s["released"]: problems.append(f"{len(lines)} telemetry lines, {s['released']} released")
if len({l["id"] for l in lines}) != len(lines): problems.append("a request twice in the telemetry")
if sum(l["outcome"] == "completed" for l in lines) != s["completed"]: problems.append("completed counts differ")
for l in lines:
    if l["outcome"] == "completed" and not (l["arrival_us"] <= l["start_us"] <= l["end_us"]): problems.append(f"times out of order: {l}"); break
    if l["outcome"] == "completed" and abs(l["latency_us"] - (l["end_us"] - l["arrival_us"])) > 1e-6: problems.append("latency != end - arrival"); break
if s["latency_us"]["p99"] < s["latency_us"]["p50"]: problems.append("p99 below p50")
print("; ".join(problems) or f"{s['released']} released, {s['completed']} completed, {s['batches']} batches")
sys.exit(1 if problems else 0)
PY
}

for mode in default triton; do
  run "serve --mode $mode" "$WORK/$mode.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" --mode $mode \
    --telemetry "$WORK/$mode.jsonl" --summary "$WORK/$mode.json" --slo-ms 50 --trace "$WORK/$mode.trace.json" \
    --metrics-file "$WORK/$mode.prom"
  check "$mode: every request ends once, telemetry = summary" check_run "$WORK/$mode.json" "$WORK/$mode.jsonl" 400
done

# Chunks: requests longer than 4 rows run 4 at a time between other batches; every request still ends once.
run "serve --chunk 4" "$WORK/chunk.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" --mode triton --chunk 4 \
  --telemetry "$WORK/chunk.jsonl" --summary "$WORK/chunk.json" --trace "$WORK/chunk.trace.json" \
  --metrics-file "$WORK/chunk.prom"
check "chunk: every request ends once, telemetry = summary" check_run "$WORK/chunk.json" "$WORK/chunk.jsonl" 400
check "chunk: recorded in the summary" json_check "$WORK/chunk.json" '
assert d["chunk"] == 4, d["chunk"]
assert d["batches"] >= 1
'
# Every chunk is a batch of its own: in the trace (a slice each, the ones with more to run named "chunk"), in
# the metrics' exec count and in the summary's batches.
check_chunk_trace() {
  "$python" - "$WORK/chunk.trace.json" "$WORK/chunk.json" "$WORK/trace.jsonl" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
s = json.load(open(sys.argv[2]))
slices = [e for e in events if e["ph"] == "X"]
chunks = [e for e in slices if e["name"] == "chunk"]
# Requests of more than 4 rows run ceil(rows / 4) - 1 chunks with more to run, then their rest.
expected_chunks = sum((json.loads(l)["dims"]["batch"] - 1) // 4 for l in open(sys.argv[3]))
assert len(slices) == s["batches"], (len(slices), s["batches"])
assert len(chunks) == expected_chunks, (len(chunks), expected_chunks)
assert all(e["args"]["batch_size"] == 1 and e["args"]["dims"]["batch"] == 4 for e in chunks)
print(f"{len(slices)} slices, {len(chunks)} chunks")
PY
}
check "chunk: a trace slice per batch, chunks included" check_chunk_trace

# --warmup-shapes buckets: every plan bucket of batch (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64) compiled before
# the first arrival, so no request waits for a compile.
run "serve --warmup-shapes buckets" "$WORK/buckets.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --mode triton --warmup-shapes buckets --summary "$WORK/buckets.json"
check "warm-up buckets: 12 plans compiled, none waited for" json_check "$WORK/buckets.json" '
assert d["plans"]["compiles"] == 12, d["plans"]
assert d["compile_wait_us"]["max"] == 0, d["compile_wait_us"]
assert d["completed"] == 400, d["completed"]
'
# --warmup-shapes support: every plan bucket the scenario's distribution draws (batch 1, 5 and 20: buckets 1, 6
# and 24) and the headroom above the largest up to twice it (32, 48), compiled before the first arrival; a trace
# has no distributions to read.
cat >"$WORK/tiny_scenario.json" <<'JSON'
{"format": "crmap.scenario/1", "name": "tiny_three_sizes", "workload": "tiny_mlp", "streams": 1,
 "phases": [{"name": "mixed", "duration_s": 2, "rate_rps": 100,
             "distribution": {"format": "crmap.distribution/1", "name": "three_sizes", "workload": "tiny_mlp",
                              "dims": {"batch": {"type": "categorical", "values": [1, 5, 20],
                                                 "weights": [0.5, 0.3, 0.2]}}}}]}
JSON
run "serve --warmup-shapes support" "$WORK/support.out" serve -w "$TINY" --requests "$WORK/tiny_scenario.json" \
  --mode triton --max-batch 1 --warmup-shapes support --summary "$WORK/support.json"
check "warm-up support: the 3 buckets drawn and 2 above compiled first, none waited for" json_check \
  "$WORK/support.json" '
assert d["plans"]["compiles"] == 5, d["plans"]
assert d["compile_wait_us"]["max"] == 0, d["compile_wait_us"]
assert d["completed"] == d["released"] > 100, (d["completed"], d["released"])
'
expect_bad "--warmup-shapes support on a trace" "needs a scenario" serve -w "$TINY" \
  --requests "$WORK/trace.jsonl" --warmup-shapes support
expect_bad "--max-plans out of range" "--max-plans" serve -w "$TINY" --requests "$WORK/trace.jsonl" --max-plans 0
expect_bad "--warmup-shapes unknown" "allowed: buckets" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --warmup-shapes everything
expect_bad "--warmup-shapes out of range" "--warmup-shapes" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --warmup-shapes "batch=999"
expect_bad "--chunk negative" "--chunk" serve -w "$TINY" --requests "$WORK/trace.jsonl" --chunk -2
expect_bad "--chunk beyond the summing dim's range" "beyond batch's range" serve -w "$TINY" \
  --requests "$WORK/trace.jsonl" --chunk 100

# Prometheus metrics file: promtool (Debian's prometheus, installed by scripts/install_deps.sh) parses it and finds
# nothing to lint but the one thing we chose — Triton's `_us` unit in the duration names (exit 3 for lint findings
# alone, 1 for a format error) — and its counts are the summary's.
check_metrics() {
  local prom=$1 summary=$2 lint rc
  lint=$(promtool check metrics <"$prom" 2>&1)
  rc=$?
  if [[ $rc -ne 0 && $rc -ne 3 ]] || grep -v "_duration_us metric names should not contain abbreviated units" \
      <<<"$lint" | grep -q .; then
    echo "promtool (exit $rc): $lint"
    return 1
  fi
  "$python" - "$prom" "$summary" <<'PY'
import json, re, sys
samples = {}
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip(): continue
    name_labels, value = line.rsplit(" ", 1)
    samples[name_labels] = float(value)
def get(name, label=""):
    found = [v for k, v in samples.items() if re.match(re.escape(name) + r"(\{|$)", k) and label in k]
    assert len(found) == 1, (name, label, found)
    return found[0]
s = json.load(open(sys.argv[2]))
assert get("crmap_request_success_total") == s["completed"], "success != completed"
for reason, n in s["rejected"].items():
    assert get("crmap_request_failure_total", f'reason="{reason}"') == n, reason
assert get("crmap_inference_exec_count_total") == s["batches"], ("batches", get("crmap_inference_exec_count_total"), s["batches"])
assert get("crmap_request_duration_us_count") == s["completed"]
p99 = get("crmap_request_duration_us", 'quantile="0.99"')
assert p99 >= get("crmap_request_duration_us", 'quantile="0.5"') > 0
assert 'mode="' + s["mode"] + '"' in open(sys.argv[1]).read()
print(f"p99 {p99:.0f} us (summary {s['latency_us']['p99']:.0f} us)")
PY
}
check "metrics file: promtool accepts it, counts = summary" check_metrics "$WORK/triton.prom" "$WORK/triton.json"
check "chunk: metrics count every chunk's batch" check_metrics "$WORK/chunk.prom" "$WORK/chunk.json"
# --thread-wait spin: between batches the default plan's team (all cores) spins until the next request; the CPU
# it burnt is reported (nothing to keep warm on a 1-core host). 20 requests 50 ms apart. Whether the executor ever
# idled depends on the machine's load (under a loaded sanitizer run it once never did), so the telemetry decides
# what is asserted: once a request arrived 25 ms or more after the previous batch had ended, the server saw an
# empty queue and must have kept the team warm.
"$python" -c '
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(20):
        f.write(json.dumps({"t_us": i * 50000.0, "dims": {"batch": 4}, "stream": 0, "phase": 0}) + "\n")' "$WORK/sparse.jsonl"
run "serve --thread-wait spin" "$WORK/spin.out" serve -w "$TINY" --requests "$WORK/sparse.jsonl" --thread-wait spin \
  --summary "$WORK/spin.json" --telemetry "$WORK/spin.jsonl"
check "spin: every request ends once" check_run "$WORK/spin.json" "$WORK/spin.jsonl" 20
check_keep_warm() {
  "$python" - "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
records = sorted((json.loads(line) for line in open(sys.argv[2])), key=lambda r: r["start_us"])
c = s["cpu"]
assert c["process_s"] > 0, c
idle = any(b["arrival_us"] >= a["end_us"] + 25000 for a, b in zip(records, records[1:]))
if not idle:
    print("not asserted: the executor never idled 25 ms (a loaded machine)")
elif s["host"]["cores"] > 1:
    assert c["keep_warm_s"] > 0, ("idled, yet no keep-warm", c)
    print(f"keep-warm {c['keep_warm_s']:.2f} s")
else:
    assert c["keep_warm_s"] == 0, ("a 1-core host has no team to keep warm", c)
PY
}
check "spin: the keep-warm CPU is reported" check_keep_warm "$WORK/spin.json" "$WORK/spin.jsonl"
check "passive: no keep-warm CPU" json_check "$WORK/default.json" 'assert d["cpu"]["keep_warm_s"] == 0, d["cpu"]'
expect_bad "--thread-wait unknown" "spin_<N>us" serve -w "$TINY" --requests "$WORK/trace.jsonl" --thread-wait active
expect_bad "--metrics-bind without a port" "--metrics-bind needs --metrics-port" serve -w "$TINY" \
  --requests "$WORK/trace.jsonl" --metrics-bind 0.0.0.0
expect_bad "--metrics-port out of range" "metrics-port" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --metrics-port 70000
expect_bad "--metrics-file over the input" "--metrics-file" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --metrics-file "$WORK/trace.jsonl"
check "summary fields (1)" json_check "$WORK/triton.json" 'assert d["mean_batch_size"] > 1, d["mean_batch_size"]; assert d["by_source"] == {"triton": d["completed"]}'
"$python" - "$WORK/triton.trace.json" "$WORK/triton.json" <<'PY' && pass "trace: a span per request, a slice per batch, the queue depth back to 0" \
  || fail "trace: a span per request, a slice per batch, the queue depth back to 0" "see above"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
s = json.load(open(sys.argv[2]))
begins = {e["id"] for e in events if e["ph"] == "b"}
ends = {e["id"] for e in events if e["ph"] == "e"}
slices = [e for e in events if e["ph"] == "X"]
depth = [e["args"]["depth"] for e in events if e["ph"] == "C"]
ok = len(begins) == len(ends) == s["released"] and len(slices) == s["batches"] and depth[-1] == 0 and min(depth) >= 0
print(len(begins), len(ends), len(slices), depth[-1:])
sys.exit(0 if ok else 1)
PY
grep -q "p99" "$WORK/default.out" && pass "the text summary prints the tail" || fail "text summary" "$(cat "$WORK/default.out")"

run "serve --mode static --placement per_core" "$WORK/static.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --mode static -c "threads=1;batch=4;queue_delay_us=200" --placement per_core --telemetry "$WORK/static.jsonl" \
  --summary "$WORK/static.json"
check "static per_core: every request ends once" check_run "$WORK/static.json" "$WORK/static.jsonl" 400
check "summary fields (2)" json_check "$WORK/static.json" 'assert d["executors"] >= 1 and d["placement"] == "per_core"; assert d["mean_batch_size"] <= 4'

run "serve --executor libtorch --mode triton" "$WORK/torch.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --executor libtorch --mode triton --telemetry "$WORK/torch.jsonl" --summary "$WORK/torch.json"
check "libtorch: every request ends once" check_run "$WORK/torch.json" "$WORK/torch.jsonl" 400
check "libtorch: its executor served every batch" "$python" -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if all(l["executor"] == "libtorch" and l["plan"] == "libtorch" for l in lines) else 1)' "$WORK/torch.jsonl"
expect_bad "libtorch per core" "per_core is for the onednn executor" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --executor libtorch --placement per_core

# A tiny database for the oracle and static-from-db modes.
"$CRMAP" tune --workload "$TINY" --shapes "batch=2;batch=16" --agent random --budget 6 --rounds 2 --warmup 0 \
  --cold-samples 0 --no-confirm --db "$WORK/tiny.jsonl" >/dev/null 2>&1 || fail "tune for the oracle" "failed"
run "serve --mode oracle" "$WORK/oracle.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" --mode oracle \
  --db "$WORK/tiny.jsonl" --telemetry "$WORK/oracle.jsonl" --summary "$WORK/oracle.json"
check "oracle: every request ends once" check_run "$WORK/oracle.json" "$WORK/oracle.jsonl" 400
run "serve --mode static --db" "$WORK/sdb.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" --mode static \
  --db "$WORK/tiny.jsonl" --summary "$WORK/sdb.json" --duration 0.1 --no-warmup
check "summary fields (3)" json_check "$WORK/sdb.json" 'assert d["by_source"].get("static", 0) == d["completed"] > 0; assert d["warmup_ms"] == 0'
check "warm-up by default" json_check "$WORK/default.json" 'assert d["warmup_ms"] > 0, d["warmup_ms"]'

# A policy that cannot be opened, with --fallback: served from the fallback, said so.
run "serve --mode policy with a missing policy and --fallback" "$WORK/fb.out" serve -w "$TINY" \
  --requests "$WORK/trace.jsonl" --mode policy --policy "$WORK/none.policy" --fallback "threads=1;batch=4" \
  --summary "$WORK/fb.json" --duration 0.1
check "summary fields (4)" json_check "$WORK/fb.json" 'assert d["by_source"].get("fallback", 0) == d["completed"] > 0, d["by_source"]'

# CSV: mapped, out-of-range rows rejected and counted (reject), or clamped (clamp); time scaled.
run "serve a CSV (reject)" "$WORK/csv.out" serve -w "$TINY" --requests "$WORK/azure.csv" --map batch=ContextTokens \
  --time-scale 0.1 --summary "$WORK/csv.json" --telemetry "$WORK/csv.jsonl"
check "summary fields (5)" json_check "$WORK/csv.json" 'assert d["rejected"]["out_of_range"] == 5 == d["source"]["out_of_range"], d["rejected"]; assert d["completed"] == 55'
run "serve a CSV (clamp)" "$WORK/clamp.out" serve -w "$TINY" --requests "$WORK/azure.csv" --map batch=ContextTokens \
  --out-of-range clamp --time-scale 0.1 --summary "$WORK/clamp.json"
check "summary fields (6)" json_check "$WORK/clamp.json" 'assert d["completed"] == 60 and d["source"]["adjusted"] == 5'

# Bad input: exit 2, one line naming the problem.
expect_bad "unknown column in --map" "its columns: TIMESTAMP, ContextTokens, GeneratedTokens" serve -w "$TINY" \
  --requests "$WORK/azure.csv" --map batch=Prompt
expect_bad "unknown dim in --map" "its dims: batch" serve -w "$TINY" --requests "$WORK/azure.csv" --map tokens=ContextTokens
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:00,4,1\n2023-11-16 18:17:01,4\n' >"$WORK/bad.csv"
expect_bad "malformed CSV line" "bad.csv:3:" serve -w "$TINY" --requests "$WORK/bad.csv" --map batch=ContextTokens
expect_bad "CSV without --map" "--map" serve -w "$TINY" --requests "$WORK/azure.csv"
expect_bad "unknown mode" "allowed: default, triton, static, policy, oracle" serve -w "$TINY" \
  --requests "$WORK/trace.jsonl" --mode fastest
expect_bad "policy mode without --policy" "--mode policy needs --policy" serve -w "$TINY" \
  --requests "$WORK/trace.jsonl" --mode policy
expect_bad "missing policy without --fallback" "--fallback" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --mode policy --policy "$WORK/none.policy"
expect_bad "telemetry over the request trace" "--telemetry" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --telemetry "$WORK/trace.jsonl"
expect_bad "unknown placement" "allowed: shared, per_core" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --placement numa
expect_bad "--priorities for more streams than there are" "the requests have 2" serve -w "$TINY" \
  --requests "$WORK/trace.jsonl" --priorities 0,1,2
expect_bad "--priorities not a list of levels" "--priorities" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --priorities 0,x
run "serve with stream priorities" "$WORK/prio.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --priorities 1,0 --summary "$WORK/prio.json" --duration 0.2
expect_bad "--max-batch out of range" "--max-batch must be in" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --max-batch 0

# A policy, reloaded while serving: by SIGHUP, and by --reload-on-change when the file changes. No request is
# lost across the reloads; a reload of a broken file keeps the old policy answering.
"$CRMAP" train --db "$WORK/tiny.jsonl" --out "$WORK/p.policy" --critic-epochs 5 --policy-steps 5 >/dev/null 2>&1 \
  || fail "train a policy" "failed"
cp "$WORK/p.policy" "$WORK/good.policy"
"$python" - "$WORK" <<'PY'
import json, sys
with open(f"{sys.argv[1]}/steady.jsonl", "w") as f:
    for i in range(2500):
        f.write(json.dumps({"t_us": i * 2000.0, "dims": {"batch": 1 + i % 16}, "stream": 0, "phase": 0}) + "\n")
PY
"$CRMAP" serve -w "$TINY" --requests "$WORK/steady.jsonl" --mode policy --policy "$WORK/p.policy" \
  --reload-on-change --telemetry "$WORK/reload.jsonl" --summary "$WORK/reload.json" >"$WORK/reload.out" 2>"$WORK/reload.err" &
pid=$!
wait_serving "$WORK/reload.jsonl" || fail "serve with reloads starts" "no telemetry after a minute"
kill -HUP $pid
sleep 1
cp "$WORK/p.policy" "$WORK/p2.policy" && echo garbage >>"$WORK/p2.policy" && cp "$WORK/p2.policy" "$WORK/p.policy"
sleep 1
cp "$WORK/good.policy" "$WORK/p.policy"
sleep 1
wait $pid
status=$?
[[ $status -eq 0 ]] && pass "serve with reloads finishes" || fail "serve with reloads finishes" "exit $status: $(tail -c 300 "$WORK/reload.err")"
check "reloads: every request ends once" check_run "$WORK/reload.json" "$WORK/reload.jsonl" 2500
check "summary fields (7)" json_check "$WORK/reload.json" 'h = d["hook"]; assert h["reloads"] >= 2 and h["reload_failures"] >= 1, h; assert h["policy_generation"] == 1 + h["reloads"], h; assert d["failed"] == 0'

# SIGTERM: arrivals stop, queued requests are rejected (--on-stop reject), the outputs are written, exit 130.
"$python" - "$WORK" <<'PY'
import json, sys
with open(f"{sys.argv[1]}/slow.jsonl", "w") as f:
    for i in range(3000):
        f.write(json.dumps({"t_us": i * 2000.0, "dims": {"batch": 8}, "stream": 0, "phase": 0}) + "\n")
PY
"$CRMAP" serve -w "$TINY" --requests "$WORK/slow.jsonl" --on-stop reject --telemetry "$WORK/term.jsonl" \
  --summary "$WORK/term.json" --metrics-file "$WORK/term.prom" >"$WORK/term.out" 2>"$WORK/term.err" &
pid=$!
wait_serving "$WORK/term.jsonl" || fail "serve to be stopped starts" "no telemetry after a minute"
sleep 1
kill -TERM $pid
wait $pid
status=$?
[[ $status -eq 130 ]] && pass "SIGTERM: exit 130" || fail "SIGTERM: exit 130" "exit $status: $(tail -c 300 "$WORK/term.err")"
check "SIGTERM: every released request ends once, outputs written" check_run "$WORK/term.json" "$WORK/term.jsonl" 3000
check "summary fields (8)" json_check "$WORK/term.json" 'assert d["not_released"] > 0, d["not_released"]'
check "SIGTERM: the metrics file is written, counts = summary" check_metrics "$WORK/term.prom" "$WORK/term.json"

cli_test_finish
