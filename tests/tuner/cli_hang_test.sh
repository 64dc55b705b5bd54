#!/usr/bin/env bash
# A kernel that never returns (issue 10). No real oneDNN kernel hangs on demand, so the fault-injection point
# CRMAP_FAILPOINT_HANG_CONFIG makes the runs of one config block forever (backend/session.cpp); everything
# else — the watchdog thread, the record, the exec with --resume — is the real binary's. What must hold:
# `measure` ends with exit 3 naming the config; a campaign records the candidate as a timeout, restarts itself
# and spends the rest of its budget, measuring nothing twice; restarts are capped.
# Usage: cli_hang_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_hang "${1:-}"
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
TINY="$SOURCE_DIR/tests/data/tiny_mlp.json"
fast=(--rounds 1 --warmup 0 --cold-samples 0 --timeout-ms 300 --hang-ms 1000)
common=(tune --workload "$TINY" --shapes "batch=2;batch=16" --agent random --no-confirm --seed 3 "${fast[@]}")
budget=6

# The configs the campaign proposes, from a run without the fault. The hung one is a config this host runs (the
# third proposed where it is, else the last that is: on an AVX2-only host the bf16 ones are unsupported and never
# reach a kernel).
run "campaign without a hang" "$WORK/clean.out" "${common[@]}" --budget $budget --db "$WORK/clean.jsonl"
hung=$("$python" -c '
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
ran = [(i, r["config"]) for i, r in enumerate(r for r in records if r["agent"] != "anchor") if r["status"] == "ok"]
print(next((c for i, c in ran if i >= 2), ran[-1][1]))' "$WORK/clean.jsonl")
default=$("$python" -c '
import json, sys
print([json.loads(l)["config"] for l in open(sys.argv[1]) if json.loads(l)["agent"] == "anchor"][0])' "$WORK/clean.jsonl")

# --- measure: exit 3 naming the config ------------------------------------------------------------------------
CRMAP_FAILPOINT_HANG_CONFIG="$default" "$CRMAP" measure -w "$TINY" --dims batch=2 "${fast[@]}" \
  >"$WORK/measure.out" 2>"$WORK/measure.err"
status=$?
if [[ $status -eq 3 ]] && grep -qF "$default at batch=2 did not return within 1000 ms" "$WORK/measure.err"; then
  pass "measure: a hung kernel ends the process with exit 3 naming it"
else fail "measure: a hung kernel ends the process with exit 3 naming it" "exit $status: $(tail -c 400 "$WORK/measure.err")"; fi

# --- a campaign: recorded as a timeout, restarted with --resume, the budget spent, nothing twice ---------------
db="$WORK/hang.jsonl"
CRMAP_FAILPOINT_HANG_CONFIG="$hung" "$CRMAP" "${common[@]}" --budget $budget --db "$db" >"$WORK/hang.out" 2>"$WORK/hang.err"
status=$?
[[ $status -eq 0 ]] && pass "campaign with a hung kernel finishes" \
  || fail "campaign with a hung kernel finishes" "exit $status: $(tail -c 400 "$WORK/hang.err")"
timeouts=$(grep -c '"status":"timeout"' "$db")
restarts=$(grep -c "restarting the campaign with --resume (restart" "$WORK/hang.err")
[[ $restarts -ge 1 && $restarts -eq $timeouts ]] \
  && pass "campaign: one announced restart per recorded hang" "$restarts" \
  || fail "campaign: one announced restart per recorded hang" "$restarts restarts, $timeouts timeouts"
"$python" - "$db" "$budget" "$hung" <<'PY' && pass "campaign: the hung config is recorded as a timeout, the budget spent, nothing twice" \
  || fail "campaign: the hung config is recorded as a timeout, the budget spent, nothing twice" "see above"
import json, sys
path, budget, hung = sys.argv[1], int(sys.argv[2]), sys.argv[3]
records = [json.loads(l) for l in open(path)]
agent = [r for r in records if r["agent"] != "anchor"]
keys = [(json.dumps(r["dims"], sort_keys=True), r["config"]) for r in agent]
timeouts = [r for r in agent if r["status"] == "timeout"]
ok = True
if len(keys) != len(set(keys)): print("measured twice"); ok = False
charged = [r for r in agent if r["status"] != "unsupported"]  # a refusal is not charged (bf16 on AVX2)
if len(charged) != budget: print(f"{len(charged)} charged agent records, budget {budget}"); ok = False
# The fault hangs the config at every shape, so the resumed agent may meet it once more at the other one.
if not timeouts or any(t["config"] != hung or "did not return within" not in t.get("message", "") for t in timeouts):
    print("timeouts:", [(t["config"], t.get("message")) for t in timeouts]); ok = False
if any(r["status"] not in ("ok", "unsupported") for r in agent if r["config"] != hung):
    print("another config failed"); ok = False
sys.exit(0 if ok else 1)
PY

# --- the default config hangs: every restart would hang again, so restarts are capped -------------------------
CRMAP_HANG_RESTARTS=8 CRMAP_FAILPOINT_HANG_CONFIG="$default" "$CRMAP" "${common[@]}" --budget $budget \
  --db "$WORK/capped.jsonl" >"$WORK/capped.out" 2>"$WORK/capped.err"
status=$?
if [[ $status -eq 3 ]] && grep -q "stops here" "$WORK/capped.err" && grep -q -- "--resume" "$WORK/capped.err"; then
  pass "campaign: restarts are capped (exit 3 with the resume command)"
else fail "campaign: restarts are capped" "exit $status: $(tail -c 400 "$WORK/capped.err")"; fi
grep -q '"status":"timeout"' "$WORK/capped.jsonl" && pass "campaign: the hung anchor is recorded before the end" \
  || fail "campaign: the hung anchor is recorded before the end" "$(cat "$WORK/capped.jsonl" 2>/dev/null | head -c 300)"

# --- --hang-ms below --timeout-ms is refused --------------------------------------------------------------------
expect_bad "--hang-ms below --timeout-ms" "--hang-ms must be in" measure -w "$TINY" --dims batch=2 --timeout-ms 500 \
  --hang-ms 100

cli_test_finish
