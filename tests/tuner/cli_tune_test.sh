#!/usr/bin/env bash
# Budget accounting of `crmap tune` and `crmap campaign` on the real backend (tiny shapes, 1–2 rounds):
#  - the default config, measured as every batch's anchor, is stored once and never spent budget on again:
#    an exhaustive random campaign over one shape stores each plan config exactly once;
#  - two spec tasks of the same workload and agent are separate campaigns, each spending its own budget;
#  - a resumed campaign given a new shape spends the full budget there.
# $1: the crmap binary.
set -u
crmap="$1"
work=$(mktemp -d "${TMPDIR:-/tmp}/crmap_cli_tune.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
python=/usr/bin/python3

# count DB: prints "records duplicates" and one "campaign dims agent count" line per group.
count() {
  "$python" - "$1" <<'PY'
import json, sys
from collections import Counter
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
keys = Counter((json.dumps(r["dims"], sort_keys=True), r["config"]) for r in records)
print(len(records), sum(n - 1 for n in keys.values()))
for (campaign, dims, agent), n in sorted(Counter((r["campaign"], json.dumps(r["dims"]), r["agent"]) for r in records).items()):
    print(campaign, dims.replace(" ", ""), agent, n)
PY
}

quick=(--rounds 1 --warmup 0 --no-confirm)

# --- the anchor is never measured twice: an exhaustive random campaign over dlrm_mlp's 216 plan configs -----
plan_configs=$("$crmap" space --workload dlrm_mlp --json | "$python" -c 'import json,sys; print(json.load(sys.stdin)["size"]["plan"])')
db="$work/exhaustive.jsonl"
"$crmap" tune --workload dlrm_mlp --shapes "batch=1" --agent random --budget 100000 --seed 3 "${quick[@]}" \
  --db "$db" >"$work/exhaustive.out" 2>&1 || fail "exhaustive campaign: $(tail -3 "$work/exhaustive.out")"
count "$db" >"$work/count" && read -r records dupes <"$work/count"
[ "$dupes" = 0 ] || fail "exhaustive campaign: $dupes (dims, config) stored twice"
[ "$records" = "$plan_configs" ] || fail "exhaustive campaign: $records records for $plan_configs plan configs"
grep -q "nothing left to propose" "$work/exhaustive.out" || fail "exhaustive campaign did not end by exhausting the space"

# --- two tasks of one workload and agent: separate campaigns, separate budgets ----------------------------
cat >"$work/dup.json" <<'JSON'
{"format": "crmap.campaign/1", "name": "dup", "rounds": 1, "warmup": 0, "batch": 4, "confirm": false,
 "tasks": [{"workload": "dlrm_mlp", "shapes": "batch=1", "agent": "random", "budget": 3},
           {"workload": "dlrm_mlp", "shapes": "batch=2", "agent": "random", "budget": 3}]}
JSON
db="$work/dup.jsonl"
"$crmap" campaign --spec "$work/dup.json" --db "$db" >"$work/dup.out" 2>&1 || fail "two-task campaign: $(tail -3 "$work/dup.out")"
count "$db" >"$work/dup.count"
grep -qx 'dup/dlrm_mlp/random {"batch":1} random 3' "$work/dup.count" || fail "task 1: $(cat "$work/dup.count")"
grep -qx 'dup/dlrm_mlp/random#2 {"batch":2} random 3' "$work/dup.count" || fail "task 2: $(cat "$work/dup.count")"
# Running it again is refused; with --resume nothing is left to do and nothing is measured.
if "$crmap" campaign --spec "$work/dup.json" --db "$db" >"$work/again.out" 2>&1; then
  fail "re-running a finished campaign without --resume was accepted"
fi
"$crmap" campaign --spec "$work/dup.json" --db "$db" --resume >"$work/resume.out" 2>&1 || fail "resume: $(tail -3 "$work/resume.out")"
count "$db" >"$work/count" && read -r records dupes <"$work/count"
[ "$records" = 8 ] || fail "the resumed finished campaign measured again: $records records, expected 8"

# --- a resumed campaign given a new shape spends the full budget there -------------------------------------
db="$work/grow.jsonl"
"$crmap" tune --workload dlrm_mlp --shapes "batch=1" --agent random --budget 4 --campaign grow --seed 5 "${quick[@]}" \
  --db "$db" >"$work/grow1.out" 2>&1 || fail "first shape: $(tail -3 "$work/grow1.out")"
"$crmap" tune --workload dlrm_mlp --shapes "batch=4" --agent random --budget 4 --campaign grow --seed 5 "${quick[@]}" \
  --db "$db" --resume --json >"$work/grow2.json" 2>"$work/grow2.err" || fail "new shape: $(tail -3 "$work/grow2.err")"
count "$db" >"$work/grow.count"
grep -qx 'grow {"batch":4} random 4' "$work/grow.count" || fail "the new shape got: $(cat "$work/grow.count")"
# The report counts this campaign's measurements at the shape, and its ok ones among them.
"$python" - "$work/grow2.json" <<'PY' || failures=$((failures + 1))
import json, sys
report = json.load(open(sys.argv[1]))
shape = report["shapes"][0]
if shape["measurements"] != 4 or not 0 <= shape["ok"] <= 4 or report["measured_now"] != 4:
    print("FAIL: resumed report:", report)
    sys.exit(1)
PY

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "cli_tune_test: ok"
