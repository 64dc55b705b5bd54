#!/usr/bin/env bash
# crmap tune --requests end to end on real oneDNN plans (tests/data/tiny_mlp.json, a 300-request stream): every
# set-up of the grid is served in every round with every request accounted for, the anchor's ratio is 1, the
# best's runtime knobs are written into a policy that the hook then answers with (read back through the
# telemetry of a serve), and bad input is exit 2 naming the problem — before anything is served.
# Usage: cli_tune_runtime_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_tune_runtime "${1:-}"
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
TINY="$SOURCE_DIR/tests/data/tiny_mlp.json"

"$python" - "$WORK" <<'PY'
import json, random, sys
rng = random.Random(7)
t = 0.0
with open(f"{sys.argv[1]}/trace.jsonl", "w") as f:
    for i in range(300):
        t += rng.expovariate(1 / 1000)
        f.write(json.dumps({"t_us": round(t, 1), "dims": {"batch": rng.randint(1, 16)}, "stream": 0, "phase": 0}) + "\n")
PY

# The grid: batch 1 takes one delay (it never waits), batch 8 both, each on both placements: 6 set-ups, 2 rounds.
run "tune the runtime on a stream" "$WORK/grid.out" tune -w "$TINY" --requests "$WORK/trace.jsonl" \
  --max-batch 1,8 --queue-delay-us 0,500 --placement shared,per_core --rounds 2 --objective p95 \
  --summary "$WORK/grid.json"
check "every set-up served in every round, every request counted" json_check "$WORK/grid.json" '
s = d["settings"]
assert len(s) == 6, [x["setting"] for x in s]
assert d["rounds"] == 2 and d["objective"] == "p95"
assert s[0]["setting"] == "batch=1;queue_delay_us=0;placement=shared", s[0]["setting"]
assert all(x["requests"] == 600 for x in s), [x["requests"] for x in s]
assert all(x["unserved"] == 0 for x in s)
assert abs(s[0]["ratio_to_anchor"] - 1) < 1e-12
assert all(len(x["round_figures"]) == 2 for x in s)
b = s[d["best_index"]]
assert d["best"] == b["setting"]
assert all(b["figure"] <= x["figure"] for x in s), "the best has the lowest p95"
assert all(x["latency_ms"]["p50"] <= x["latency_ms"]["p95"] <= x["latency_ms"]["p99"] for x in s)
'
check "the table marks the anchor and the best rows" bash -c 'grep -qE "^anchor +batch=1;" "$1" &&
  grep -qE "^(best|anchor) +batch=" "$1" && [ "$(grep -cE "^best +batch=" "$1")" -le 1 ]' _ "$WORK/grid.out"

run "thread wait as a tuned knob" "$WORK/wait.out" tune -w "$TINY" --requests "$WORK/trace.jsonl" --max-batch 4 \
  --queue-delay-us 0 --placement shared --thread-wait passive,spin --rounds 1 --objective p50 --json
check "both thread waits served" json_check "$WORK/wait.out" '
assert [x["thread_wait"] for x in d["settings"]] == ["passive", "spin"], d["settings"]
'

run "chunk sizes as a tuned knob" "$WORK/chunk.out" tune -w "$TINY" --requests "$WORK/trace.jsonl" --max-batch 4 \
  --queue-delay-us 0 --placement shared --chunk 0,4 --rounds 1 --objective p50 --json
check "both chunk sizes served, every request counted" json_check "$WORK/chunk.out" '
assert [x["chunk"] for x in d["settings"]] == [0, 4], d["settings"]
assert all(x["requests"] == 300 and x["unserved"] == 0 for x in d["settings"])
'
expect_bad "a negative chunk" "--chunk" tune -w "$TINY" --requests "$WORK/trace.jsonl" --chunk -1

# A policy, and its runtime knobs set by tuning: one set-up, so it is the best and is written.
"$CRMAP" tune --workload "$TINY" --shapes "batch=2;batch=16" --agent random --budget 6 --rounds 2 --warmup 0 \
  --cold-samples 0 --no-confirm --db "$WORK/tiny.jsonl" >/dev/null 2>&1 || fail "tune a database" "failed"
"$CRMAP" train --db "$WORK/tiny.jsonl" --out "$WORK/p.policy" --critic-epochs 5 --policy-steps 5 >/dev/null 2>&1 \
  || fail "train a policy" "failed"
run "tune a policy's runtime knobs" "$WORK/write.out" tune -w "$TINY" --requests "$WORK/trace.jsonl" --mode policy \
  --policy "$WORK/p.policy" --max-batch 16 --queue-delay-us 1000 --placement shared --rounds 1 --objective p50 \
  --write-policy "$WORK/tuned.policy"
run "export the tuned policy" "$WORK/tuned.json" export --policy "$WORK/tuned.policy"
check "the written policy holds the runtime knobs" json_check "$WORK/tuned.json" '
knobs = {k["name"]: k for k in d["knobs"]}
assert knobs["batch"]["default"] == "16", knobs["batch"]
assert knobs["queue_delay_us"]["default"] == "1000", knobs["queue_delay_us"]
'
run "export the original policy" "$WORK/orig.json" export --policy "$WORK/p.policy"
check "the original policy is unchanged" json_check "$WORK/orig.json" '
assert {k["name"]: k for k in d["knobs"]}["batch"]["default"] == "1"
'
run "serve the tuned policy" "$WORK/serve.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" --mode policy \
  --policy "$WORK/tuned.policy" --telemetry "$WORK/serve.jsonl"
check "the hook answers with the tuned runtime knobs" "$python" -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
bad = [l["config"] for l in lines if "batch=16;queue_delay_us=1000;" not in l["config"]]
assert lines and not bad, bad[:3]
print(f"{len(lines)} requests, all decided with batch=16;queue_delay_us=1000")
' "$WORK/serve.jsonl"

# The policy's placement knob is what serve runs when --placement is not given.
run "tune a policy to per-core placement" "$WORK/pc.out" tune -w "$TINY" --requests "$WORK/trace.jsonl" \
  --mode policy --policy "$WORK/p.policy" --max-batch 4 --queue-delay-us 0 --placement per_core --rounds 1 \
  --duration 0.05 --write-policy "$WORK/per_core.policy"
run "serve it without --placement" "$WORK/pc_serve.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --mode policy --policy "$WORK/per_core.policy" --duration 0.05 --json
check "serve placed it per core" json_check "$WORK/pc_serve.out" 'assert d["placement"] == "per_core", d["placement"]'
run "serve it with --placement shared" "$WORK/sh_serve.out" serve -w "$TINY" --requests "$WORK/trace.jsonl" \
  --mode policy --policy "$WORK/per_core.policy" --duration 0.05 --placement shared --json
check "--placement overrides the policy" json_check "$WORK/sh_serve.out" 'assert d["placement"] == "shared", d["placement"]'

expect_bad "unknown objective" "allowed: p50, p95, p99, goodput" tune -w "$TINY" --requests "$WORK/trace.jsonl" \
  --objective p90
expect_bad "goodput without an SLO" "--slo-ms" tune -w "$TINY" --requests "$WORK/trace.jsonl" --objective goodput
expect_bad "--write-policy outside mode policy" "--mode policy" tune -w "$TINY" --requests "$WORK/trace.jsonl" \
  --write-policy "$WORK/x.policy"
expect_bad "--max-batch 0" "--max-batch" tune -w "$TINY" --requests "$WORK/trace.jsonl" --max-batch 0,4
expect_bad "a repeated value" "twice" tune -w "$TINY" --requests "$WORK/trace.jsonl" --max-batch 4,4
expect_bad "unknown placement" "allowed: shared, per_core" tune -w "$TINY" --requests "$WORK/trace.jsonl" \
  --placement everywhere
expect_bad "unknown thread wait" "spin_<N>us" tune -w "$TINY" --requests "$WORK/trace.jsonl" --thread-wait hot
expect_bad "--write-policy over --policy" "--write-policy" tune -w "$TINY" --requests "$WORK/trace.jsonl" \
  --mode policy --policy "$WORK/p.policy" --write-policy "$WORK/p.policy"
expect_bad "a value the policy's knob cannot hold" "cannot hold 8" tune -w "$TINY" --requests "$WORK/trace.jsonl" \
  --mode policy --policy "$WORK/p.policy" --max-batch 8 --write-policy "$WORK/y.policy"
check "nothing was written by a refused run" test ! -e "$WORK/y.policy"
expect_bad "a set-up serve would refuse, before anything is served" "set-up batch=4;queue_delay_us=0;placement=per_core" \
  tune -w "$TINY" --requests "$WORK/trace.jsonl" --executor libtorch --max-batch 4 --queue-delay-us 0 \
  --placement shared,per_core
expect_bad "a chunk beyond the summing dim" "beyond batch's range" tune -w "$TINY" --requests "$WORK/trace.jsonl" \
  --max-batch 4 --queue-delay-us 0 --placement shared --chunk 0,100
expect_bad "a missing request stream" "missing.jsonl" tune -w "$TINY" --requests "$WORK/missing.jsonl" --max-batch 4

cli_test_finish
