#!/usr/bin/env bash
# Budget accounting of `crmap tune` and `crmap campaign` on the real backend (tiny shapes, 1 round):
#  - the default config, measured as every batch's anchor, is stored once and never spent budget on again:
#    an exhaustive random campaign over one shape stores each plan config exactly once;
#  - two spec tasks of the same workload and agent are separate campaigns, each spending its own budget;
#  - a resumed campaign given a new shape spends the full budget there, and reports its own counts;
#  - the report says whether the rl agent it built runs leader climbs (`--leader-climbs`; off by default) — read
#    from the agent, so it fails when the flag does not reach it.
# Usage: cli_tune_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_tune "${1:-}"

# count DB: prints "records duplicates" (every stored record) and one "campaign dims agent count" line per group,
# counting what the budget is charged for: refusals (status unsupported, bf16 on AVX2) are stored, not charged.
count() {
  "$python" - "$1" <<'PY'
import json, sys
from collections import Counter
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
keys = Counter((json.dumps(r["dims"], sort_keys=True), r["config"]) for r in records)
print(len(records), sum(n - 1 for n in keys.values()))
charged = [r for r in records if r["status"] != "unsupported"]
groups = Counter((r["campaign"], json.dumps(r["dims"]), r["agent"]) for r in charged)
for (campaign, dims, agent), n in sorted(groups.items()):
    print(campaign, dims.replace(" ", ""), agent, n)
PY
}

quick=(--rounds 1 --warmup 0 --no-confirm)

# --- the anchor is never measured twice: an exhaustive random campaign over dlrm_mlp's 216 plan configs -----
run "space" "$WORK/space.json" space --workload dlrm_mlp --json
plan_configs=$("$python" -c 'import json,sys; print(json.load(sys.stdin)["size"]["plan"])' <"$WORK/space.json")
db="$WORK/exhaustive.jsonl"
run "exhaustive random campaign" "$WORK/exhaustive.out" tune --workload dlrm_mlp --shapes "batch=1" --agent random \
  --budget 100000 --seed 3 "${quick[@]}" --db "$db"
count "$db" >"$WORK/count" && read -r records dupes <"$WORK/count"
check "no (dims, config) stored twice" test "$dupes" = 0
check "every plan config stored once ($plan_configs)" test "$records" = "$plan_configs"
check "the campaign ended by exhausting the space" grep -q "nothing left to propose" "$WORK/exhaustive.out"

# --- two tasks of one workload and agent: separate campaigns, separate budgets ----------------------------
cat >"$WORK/dup.json" <<'JSON'
{"format": "crmap.campaign/1", "name": "dup", "rounds": 1, "warmup": 0, "batch": 4, "confirm": false,
 "tasks": [{"workload": "dlrm_mlp", "shapes": "batch=1", "agent": "random", "budget": 3},
           {"workload": "dlrm_mlp", "shapes": "batch=2", "agent": "random", "budget": 3}]}
JSON
db="$WORK/dup.jsonl"
run "two-task campaign" "$WORK/dup.out" campaign --spec "$WORK/dup.json" --db "$db"
count "$db" >"$WORK/dup.count"
check "task 1 spent its budget" grep -qx 'dup/dlrm_mlp/random {"batch":1} random 3' "$WORK/dup.count"
check "task 2, named #2, spent its own" grep -qx 'dup/dlrm_mlp/random#2 {"batch":2} random 3' "$WORK/dup.count"
# Running it again is refused; with --resume nothing is left to do and nothing is measured.
expect_bad "re-running a finished campaign without --resume" "--resume" campaign --spec "$WORK/dup.json" --db "$db"
count "$db" >"$WORK/count" && read -r records_before dupes <"$WORK/count"
run "resuming a finished campaign" "$WORK/resume.out" campaign --spec "$WORK/dup.json" --db "$db" --resume
count "$db" >"$WORK/count" && read -r records dupes <"$WORK/count"
check "the resumed finished campaign measured nothing" test "$records" = "$records_before"

# --- a resumed campaign given a new shape spends the full budget there -------------------------------------
db="$WORK/grow.jsonl"
run "first shape" "$WORK/grow1.out" tune --workload dlrm_mlp --shapes "batch=1" --agent random --budget 4 \
  --campaign grow --seed 5 "${quick[@]}" --db "$db"
run "a new shape, resumed" "$WORK/grow2.json" tune --workload dlrm_mlp --shapes "batch=4" --agent random --budget 4 \
  --campaign grow --seed 5 "${quick[@]}" --db "$db" --resume --json
count "$db" >"$WORK/grow.count"
check "the new shape got the full budget" grep -qx 'grow {"batch":4} random 4' "$WORK/grow.count"
check "a resume at none of the campaign's shapes says it starts them afresh" \
  grep -q "none at these shapes: this resume starts them afresh" "$WORK/grow2.json.err"
# The report counts this campaign's measurements at the shape, and its ok ones among them.
check "the resumed report counts its own measurements" json_check "$WORK/grow2.json" '
shape = d["shapes"][0]
assert shape["measurements"] == 4 and 0 <= shape["ok"] <= 4 and d["measured_now"] == 4, d
'

# --- leader climbs: the report says whether the rl agent ran with them (off unless --leader-climbs) ---------
for climbs in off on; do
  flag=(); [ "$climbs" = on ] && flag=(--leader-climbs)
  run "rl campaign, leader climbs $climbs" "$WORK/leader_$climbs.json" tune --workload dlrm_mlp --shapes "batch=1;batch=2" \
    --agent rl --budget 2 --seed 2 "${quick[@]}" --db "$WORK/leader_$climbs.jsonl" --json ${flag[@]+"${flag[@]}"}
done
check "the report says leader climbs were off by default" json_check "$WORK/leader_off.json" 'assert d["leader_climbs"] is False, d'
check "the report says --leader-climbs turned them on" json_check "$WORK/leader_on.json" 'assert d["leader_climbs"] is True, d'

cli_test_finish
