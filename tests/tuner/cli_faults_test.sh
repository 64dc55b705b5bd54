#!/usr/bin/env bash
# Fault injection with real processes and real files (issue 10): disk full while appending to the tuning
# database and while writing a policy (RLIMIT_FSIZE with SIGXFSZ ignored: writes past the limit fail with
# EFBIG exactly where a full disk fails with ENOSPC), SIGKILL while a policy is being written, and SIGKILL of a
# campaign at 20 random moments. What must survive: the files on disk stay valid, errors name the path, resume
# loses at most the measurement in flight and repeats none.
# Usage: cli_faults_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_faults "${1:-}"
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
TINY="$SOURCE_DIR/tests/data/tiny_mlp.json"
common=(tune --workload "$TINY" --agent random --rounds 1 --warmup 0 --cold-samples 0 --no-confirm --seed 3)

# Every non-empty line of $1 parses as a JSON object (no fragment of a record is left behind).
all_lines_parse() {
  "$python" - "$1" <<'PY'
import json, sys
for n, line in enumerate(open(sys.argv[1]), 1):
    if line.strip() and not isinstance(json.loads(line), dict):
        sys.exit(f"line {n} is not a record")
PY
}

# --- disk full while appending to the database -------------------------------------------------------------
db="$WORK/full.jsonl"
(trap '' XFSZ; ulimit -f 8; exec "$CRMAP" "${common[@]}" --shapes "batch=2;batch=16" --budget 40 --db "$db") >"$WORK/full.out" 2>"$WORK/full.err"
status=$?
if [[ $status -eq 1 ]] && grep -q "$db" "$WORK/full.err"; then pass "disk full: exit 1 naming the database" "$(tail -1 "$WORK/full.err")"
else fail "disk full: exit 1 naming the database" "exit $status: $(tail -c 300 "$WORK/full.err")"; fi
check "disk full: every stored line is a whole record" all_lines_parse "$db"
stored=$(grep -c . "$db")
[[ $stored -ge 1 ]] && pass "disk full: records before the fault kept" "$stored" || fail "disk full: records kept" "none"
if "$CRMAP" "${common[@]}" --shapes "batch=2;batch=16" --budget 40 --db "$db" --resume >"$WORK/resume.out" 2>&1; then
  pass "disk full: --resume finishes once there is room"
else fail "disk full: --resume finishes once there is room" "$(tail -c 300 "$WORK/resume.out")"; fi

# --- disk full while writing a policy: the old policy stays ------------------------------------------------
run "train a policy" "$WORK/train.out" train --db "$db" --out "$WORK/p.policy" --critic-epochs 5 --policy-steps 5
before=$(md5sum <"$WORK/p.policy")
(trap '' XFSZ; ulimit -f 1; exec "$CRMAP" train --db "$db" --out "$WORK/p.policy" --critic-epochs 5 --policy-steps 5 \
  --seed 2) >"$WORK/ptrain.out" 2>"$WORK/ptrain.err"
status=$?
if [[ $status -eq 1 ]] && grep -q "$WORK/p.policy" "$WORK/ptrain.err"; then pass "policy write on a full disk: exit 1 naming it"
else fail "policy write on a full disk: exit 1 naming it" "exit $status: $(tail -c 300 "$WORK/ptrain.err")"; fi
[[ "$(md5sum <"$WORK/p.policy")" == "$before" ]] && pass "policy write on a full disk: the old policy is intact" \
  || fail "policy write on a full disk: the old policy is intact" "modified"
leftovers=$(find "$WORK" -name 'p.policy.tmp.*' | wc -l)
[[ $leftovers -eq 0 ]] && pass "policy write on a full disk: no temporary left" || fail "no temporary left" "$leftovers"

# --- SIGKILL while a policy is being written: the file is the old one or the new one, never a mix -------------
intact=0
for attempt in $(seq 1 8); do
  "$CRMAP" train --db "$db" --out "$WORK/p.policy" --critic-epochs 200 --policy-steps 100 --seed "$attempt" \
    >/dev/null 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  "$CRMAP" export --policy "$WORK/p.policy" >/dev/null 2>"$WORK/export.err" && intact=$((intact + 1))
done
[[ $intact -eq 8 ]] && pass "SIGKILL during policy writes: the policy always opens" "8 of 8" \
  || fail "SIGKILL during policy writes: the policy always opens" "$intact of 8: $(cat "$WORK/export.err")"

# --- SIGKILL of a campaign at 20 random moments, resuming after each -----------------------------------------
# Room for 20 kills at up to 6 records each (and a batch in flight) on a loaded CI machine: 150 of 188 configs
# (4 shapes) ran out after 19 kills there; 250 of the 282 of 6 shapes.
budget=250
kill_shapes="batch=2;batch=4;batch=8;batch=16;batch=32;batch=64"
db="$WORK/kill.jsonl"
kills=0
for attempt in $(seq 1 60); do
  [[ $kills -ge 20 ]] && break
  args=("${common[@]}" --shapes "$kill_shapes" --budget $budget --db "$db")
  [[ -s "$db" ]] && args+=(--resume)
  "$CRMAP" "${args[@]}" >"$WORK/kill_run.out" 2>&1 &
  pid=$!
  # A random point: after 0 to 6 more records (0: during start-up or the first batch), polled every 10 ms.
  stored=$( [[ -f "$db" ]] && wc -l <"$db" || echo 0)
  target=$((stored + RANDOM % 7))
  for _ in $(seq 1 1000); do
    [[ $( [[ -f "$db" ]] && wc -l <"$db" || echo 0) -ge $target ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
  wait "$pid" 2>/dev/null
done
"$CRMAP" "${common[@]}" --shapes "$kill_shapes" --budget $budget --db "$db" --resume \
  >"$WORK/kill_resume.out" 2>&1
finished=$?
[[ $kills -ge 20 && $finished -eq 0 ]] && pass "campaign killed $kills times finishes" \
  || fail "campaign killed $kills times finishes" "last run exit $finished: $(tail -c 300 "$WORK/kill_resume.out")"
"$python" - "$db" "$budget" <<'PY' && pass "after $kills kills: budget spent exactly, nothing measured twice" \
  || fail "after $kills kills: budget spent exactly, nothing measured twice" "see above"
import json, sys
path, budget = sys.argv[1], int(sys.argv[2])
records = [json.loads(l) for l in open(path) if l.strip() and l.strip().startswith("{") and l.strip().endswith("}")]
keys = [(json.dumps(r["dims"], sort_keys=True), r["config"]) for r in records if r["agent"] != "anchor"]
ok = True
if len(keys) != len(set(keys)):
    print(f"{len(keys) - len(set(keys))} (dims, config) measured twice"); ok = False
charged = [r for r in records if r["agent"] != "anchor" and r["status"] != "unsupported"]  # refusals: not charged
if len(charged) != budget:
    print(f"{len(charged)} charged agent measurements, budget {budget}"); ok = False
sys.exit(0 if ok else 1)
PY

cli_test_finish
