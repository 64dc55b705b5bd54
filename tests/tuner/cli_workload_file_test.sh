#!/usr/bin/env bash
# A workload given by path works everywhere a built-in does: tune records where it came from; db, train,
# export, query, evaluate and replay find it without being told (from another directory too); when the file
# moved they say to pass --workload PATH and name the recorded path; a file whose fingerprint differs from the
# one the records were made with is refused. Uses tests/data/tiny_mlp.json (not a built-in).
# Usage: cli_workload_file_test.sh path/to/crmap path/to/tests/data/tiny_mlp.json
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_workload_file "${1:-}"
mkdir -p "$WORK/models"
cp "${2:?usage: $0 path/to/crmap path/to/tiny_mlp.json}" "$WORK/models/tiny_mlp.json"
model="$WORK/models/tiny_mlp.json"
db="$WORK/tiny.jsonl"
policy="$WORK/tiny.policy"

run "tune a workload given by path" "$WORK/tune.out" tune --workload "$model" --shapes "batch=1;batch=16" \
  --agent random --budget 12 --rounds 1 --warmup 0 --cold-samples 0 --no-confirm --db "$db"
check "every record names the workload's file" "$python" - "$db" "$model" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
assert records and all(r["workload_source"] == sys.argv[2] for r in records), {r.get("workload_source") for r in records}
PY
run "db stats" "$WORK/stats.txt" db stats --db "$db"
check "db stats reads the fingerprints from the file" grep -q "tiny_mlp .*$model" "$WORK/stats.txt"
run "db best" "$WORK/best.txt" db best --db "$db"
check "db best ranks both shapes" grep -q "batch=16" "$WORK/best.txt"
check "train without --workload, from another directory" \
  bash -c 'cd / && "$1" train --db "$2" --out "$3" --critic-epochs 50 --policy-steps 20 >/dev/null' _ "$CRMAP" "$db" "$policy"
run "export" "$WORK/policy.json" export --policy "$policy" --format json
check "the policy records the workload's file" json_check "$WORK/policy.json" '
import sys
assert d["workload"] == "tiny_mlp" and d["workload_source"].endswith("/models/tiny_mlp.json"), d["workload_source"]
'
run "query" "$WORK/query.out" query --policy "$policy" --dims batch=5
check "evaluate without --workload, from another directory" \
  bash -c 'cd / && "$1" evaluate --policy "$2" --shapes "batch=4" --screen-rounds 1 --rounds 2 --warmup 0 \
           --cold-samples 0 --json >"$3" 2>"$3.err" || { tail -2 "$3.err"; exit 1; }' _ "$CRMAP" "$policy" "$WORK/eval.json"
run "replay without --workload" "$WORK/replay.out" replay --db "$db" --agent random --seeds 1 --budget 4

# The file moved: every command says what to pass, and works when given it.
mv "$model" "$WORK/models/moved.json"
expect_bad "train after the file moved" "which no longer exists; pass --workload PATH" \
  train --db "$db" --out "$WORK/x.policy"
expect_bad "evaluate after the file moved" "$model, which no longer exists" \
  evaluate --policy "$policy" --shapes "batch=4"
expect_bad "replay after the file moved" "pass --workload PATH" replay --db "$db" --agent random
run "db stats after the file moved" "$WORK/moved_stats.txt" db stats --db "$db"
check "db stats warns that the file moved and what to pass" \
  grep -q "$model, which no longer exists.*pass --workload PATH" "$WORK/moved_stats.txt.err"
check "db stats falls back to the latest record's fingerprints" grep -q "tiny_mlp .*latest record" "$WORK/moved_stats.txt"
check "train with --workload PATH to where it moved" bash -c '"$1" train --db "$2" --workload "$3" --out "$4" \
  --critic-epochs 10 --policy-steps 10 >/dev/null' _ "$CRMAP" "$db" "$WORK/models/moved.json" "$WORK/x.policy"

# Another version of the file (its seed changed, so its weights differ): refused, naming the fingerprints.
sed 's/"seed": 5/"seed": 6/' "$WORK/models/moved.json" >"$WORK/models/edited.json"
expect_bad "train with a changed file" "was made with" \
  train --db "$db" --workload "$WORK/models/edited.json" --out "$WORK/y.policy"
expect_bad "evaluate with a changed file" "the workload changed since" \
  evaluate --policy "$policy" --workload "$WORK/models/edited.json" --shapes "batch=4"
run "db with a changed file" "$WORK/edited_stats.txt" db stats --db "$db" --workload "$WORK/models/edited.json"
check "db warns that no record matches a changed file" grep -q "was made with .*count as other fingerprints" \
  "$WORK/edited_stats.txt.err"
check "db counts its records as other fingerprints" grep -Eq "^tiny_mlp +[0-9]+ +0 +[0-9]+" "$WORK/edited_stats.txt"
check "a refused train wrote no policy" test ! -e "$WORK/y.policy"

cli_test_finish
