#!/usr/bin/env bash
# A campaign killed with SIGKILL at an arbitrary moment loses at most the batch in flight; --resume finishes
# it with nothing measured twice and the budget exactly spent. Ctrl-C (SIGINT) stops after the batch in flight,
# exits 130 and says how to resume. $1: the crmap binary.
set -u
crmap="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
python=/usr/bin/python3

budget=40
common=(tune --workload dlrm_mlp --shapes "batch=1;batch=3" --agent random --budget $budget --rounds 2 --warmup 0
        --no-confirm --seed 7)

# --- SIGKILL mid-campaign, then resume ---------------------------------------------------------------------
db="$work/kill.jsonl"
"$crmap" "${common[@]}" --db "$db" >"$work/first.out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do  # until at least two batches are stored (max 60 s)
  [ -f "$db" ] && [ "$(wc -l <"$db")" -ge 12 ] && break
  sleep 0.1
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
lines_before=$(wc -l <"$db")
[ "$lines_before" -ge 12 ] || fail "the campaign stored only $lines_before records before the kill"

"$crmap" "${common[@]}" --db "$db" --resume >"$work/second.out" 2>&1 || fail "resume failed: $(cat "$work/second.out")"

"$python" - "$db" "$budget" "$lines_before" <<'PY' || failures=$((failures + 1))
import json, sys
path, budget, before = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
records, torn = [], 0
for line in open(path):
    if not line.strip():
        continue
    try:
        records.append(json.loads(line))
    except ValueError:
        torn += 1
keys = [(json.dumps(r["dims"], sort_keys=True), r["config"]) for r in records]
dupes = len(keys) - len(set(keys))
agent = [r for r in records if r["agent"] != "anchor"]
ok = True
if dupes:
    print(f"FAIL: {dupes} (dims, config) measured twice"); ok = False
charged = [r for r in agent if r["status"] != "unsupported"]  # a refusal is not charged (bf16 on AVX2)
if len(charged) != budget:
    print(f"FAIL: {len(charged)} charged agent measurements after resume, budget was {budget}"); ok = False
if len(records) < before - 1:
    print(f"FAIL: records were lost: {len(records)} < {before}"); ok = False
if torn > 1:
    print(f"FAIL: {torn} torn lines (at most the write in flight may be torn)"); ok = False
sys.exit(0 if ok else 1)
PY
grep -q "resuming" "$work/second.out" || fail "the resumed run did not say it resumed"

# --- without --resume, an existing campaign is refused with a hint ----------------------------------------
"$crmap" "${common[@]}" --db "$db" >"$work/third.out" 2>&1
status=$?
[ $status -eq 2 ] || fail "re-running a finished campaign without --resume exited $status, expected 2"
grep -q -- "--resume" "$work/third.out" || fail "the refusal does not mention --resume"

# --- Ctrl-C: stop after the batch in flight -----------------------------------------------------------------
db2="$work/int.jsonl"
"$crmap" "${common[@]}" --budget 400 --db "$db2" >"$work/int.out" 2>"$work/int.err" &
pid=$!
for _ in $(seq 1 600); do
  [ -f "$db2" ] && [ "$(wc -l <"$db2")" -ge 5 ] && break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
status=$?
[ $status -eq 130 ] || fail "SIGINT exit status $status, expected 130"
grep -q -- "--resume" "$work/int.err" || fail "SIGINT message does not say how to resume: $(cat "$work/int.err")"
"$python" -c "
import json,sys
for n, line in enumerate(open('$db2'), 1):
    json.loads(line)  # every line complete: the batch in flight was finished and stored
" || fail "the database after SIGINT has a broken line"

if [ $failures -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "campaign kill/resume checks passed"
