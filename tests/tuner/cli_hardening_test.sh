#!/usr/bin/env bash
# Issue 10's findings as regressions, one command at a time as a careless user or an attacker would type them:
# an output that is also an input, outputs that are FIFOs, devices or symlinks, numbers beyond double or int64,
# endless or huge inputs, a campaign spec with a bad second task, database records crmap cannot use, option
# values out of range. Each must exit 2 with one message naming the problem (and lose nothing already written).
# Usage: cli_hardening_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_hardening "${1:-}"
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)

unchanged() {  # unchanged NAME FILE MD5-BEFORE
  if [[ "$(md5sum <"$2")" == "$3" ]]; then pass "$1" "$2 unchanged"; else fail "$1" "$2 was modified"; fi
}

# --- 1. An output that is also an input -------------------------------------------------------------------
cp "$SOURCE_DIR/experiments/agent_efficiency/results/dlrm_mlp_grid.jsonl" "$WORK/db.jsonl"
db_md5=$(md5sum <"$WORK/db.jsonl")
expect_bad "tune -o the database" "is the same file as --db" \
  tune --workload dlrm_mlp --shapes batch=1 --agent random --budget 1 --db "$WORK/db.jsonl" -o "$WORK/db.jsonl"
unchanged "tune -o the database: nothing lost" "$WORK/db.jsonl" "$db_md5"
expect_bad "train --out the database" "is the same file as --db" train --db "$WORK/db.jsonl" --out "$WORK/db.jsonl"
ln "$WORK/db.jsonl" "$WORK/hardlink.jsonl"
expect_bad "train --out a hard link to the database" "is the same file as --db" \
  train --db "$WORK/db.jsonl" --out "$WORK/hardlink.jsonl"
unchanged "train --out the database: nothing lost" "$WORK/db.jsonl" "$db_md5"
run "train a small policy" "$WORK/train.out" train --db "$WORK/db.jsonl" --out "$WORK/p.policy" \
  --critic-epochs 5 --policy-steps 5
policy_md5=$(md5sum <"$WORK/p.policy")
expect_bad "export -o the policy" "is the same file as --policy" export --policy "$WORK/p.policy" -o "$WORK/p.policy"
unchanged "export -o the policy: nothing lost" "$WORK/p.policy" "$policy_md5"
run "export to a new file" "$WORK/forced.out" export --policy "$WORK/p.policy" -o "$WORK/copy.policy"

# --- 2. Outputs that are not regular files ----------------------------------------------------------------
mkfifo "$WORK/fifo"
expect_bad "--out a FIFO" "is a FIFO, not a regular file" export --policy "$WORK/p.policy" -o "$WORK/fifo"
ln -s "$WORK/copy.policy" "$WORK/link.json"
expect_bad "--out a symlink" "is a symlink" export --policy "$WORK/p.policy" -o "$WORK/link.json"
expect_bad "--out /dev/full" "is a character device" export --policy "$WORK/p.policy" -o /dev/full
if [[ -c /dev/full ]]; then pass "/dev/full is still a device"; else fail "/dev/full is still a device" "replaced"; fi
run "--force-out through a symlink keeps the link" "$WORK/link.out" \
  export --policy "$WORK/p.policy" -o "$WORK/link.json" --force-out
if [[ -L "$WORK/link.json" ]] && json_valid "$WORK/copy.policy"; then pass "symlink kept, target written"; else
  fail "symlink kept, target written" "the link was replaced or its target not written"; fi
if "$CRMAP" export --policy "$WORK/p.policy" -o /dev/full --force-out >/dev/null 2>"$WORK/full.err"; then
  fail "--force-out into /dev/full fails" "exit 0"
elif grep -q "/dev/full" "$WORK/full.err" && [[ -c /dev/full ]]; then pass "--force-out into /dev/full fails" "$(cat "$WORK/full.err")"
else fail "--force-out into /dev/full fails" "$(cat "$WORK/full.err")"; fi

# --- 3. Numbers beyond double ----------------------------------------------------------------------------
sed 's/"f32": 1e-4/"f32": 1e999/' "$SOURCE_DIR/tests/data/tiny_mlp.json" >"$WORK/overflow_workload.json"
expect_bad "1e999 in a workload" "overflow_workload.json" space --workload "$WORK/overflow_workload.json"
expect_bad "1e999 in --config" "config" measure --workload dlrm_mlp --dims batch=1 --config '{"threads": 1e999}'
printf '{"format": "crmap.campaign/1", "name": "x", "rounds": 1e999, "tasks": []}\n' >"$WORK/overflow_spec.json"
expect_bad "1e999 in a campaign spec" "overflow_spec.json" campaign --spec "$WORK/overflow_spec.json"
cat >"$WORK/overflow_dist.json" <<'JSON'
{"format": "crmap.distribution/1", "name": "d", "workload": "dlrm_mlp",
 "dims": {"batch": {"type": "lognormal", "median": 1e999, "sigma": 1}}}
JSON
expect_bad "1e999 in a distribution" "overflow_dist.json" \
  tune --workload dlrm_mlp --shapes "$WORK/overflow_dist.json" --agent random --budget 1 --db "$WORK/t.jsonl"

# --- 4. Shape arithmetic on user-provided sizes -----------------------------------------------------------
cat >"$WORK/square.json" <<'JSON'
{"format": "crmap.workload/1", "name": "square", "dims": {"tokens": {"min": 1, "max": 4611686018427387904, "typical": 8}},
 "inputs": [{"name": "x", "shape": ["tokens*tokens", 4]}],
 "ops": [{"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 4}], "outputs": ["fc"]}
JSON
expect_bad "tokens*tokens wrapping to 0" "elements" measure --workload "$WORK/square.json" --dims tokens=4294967296
expect_bad "tune on a wrapping shape" "elements" \
  tune --workload "$WORK/square.json" --shapes tokens=4294967296 --agent random --budget 1 --db "$WORK/square.jsonl"
if [[ -s "$WORK/square.jsonl" ]]; then fail "no database left by a refused tune" "$WORK/square.jsonl has content"; else
  pass "no database left by a refused tune"; fi
sed 's/4611686018427387904/100000/' "$WORK/square.json" >"$WORK/square100k.json"
expect_bad "10^10 x 4 floats: over the memory budget, not an internal failure" "--memory-budget" \
  measure --workload "$WORK/square100k.json" --dims tokens=100000 --rounds 1 --json

# --- 5. Endless and huge inputs ---------------------------------------------------------------------------
expect_bad "/dev/zero as a workload" "the limit for a workload file" space --workload /dev/zero
expect_bad "/dev/urandom as a distribution" "the limit for a distribution file" \
  tune --workload dlrm_mlp --shapes /dev/urandom --agent random --budget 1 --db "$WORK/u.jsonl"
expect_bad "/dev/zero as a campaign spec" "the limit for a campaign spec" campaign --spec /dev/zero
truncate -s 3G "$WORK/sparse.jsonl"
expect_bad "a 3 GB sparse file as --db" "the limit for a tuning database" db stats --db "$WORK/sparse.jsonl"

# --- 6. A campaign spec whose second task is invalid -------------------------------------------------------
cat >"$WORK/spec.json" <<JSON
{"format": "crmap.campaign/1", "name": "half", "db": "$WORK/spec.jsonl", "rounds": 1, "warmup": 0,
 "tasks": [{"workload": "$SOURCE_DIR/tests/data/tiny_mlp.json", "shapes": "batch=2", "agent": "random", "budget": 1},
           {"workload": "$SOURCE_DIR/tests/data/tiny_mlp.json", "shapes": "batch=2", "agent": "genetic", "budget": 1}]}
JSON
expect_bad "spec with a bad second task" "nothing was measured" campaign --spec "$WORK/spec.json"
if [[ -e "$WORK/spec.jsonl" ]]; then fail "nothing measured before the spec was checked" "$WORK/spec.jsonl exists"; else
  pass "nothing measured before the spec was checked"; fi

# --- 7. Records crmap cannot use are named and never used --------------------------------------------------
"$python" - "$WORK/db.jsonl" "$WORK/dirty.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
out = open(sys.argv[2], "w")
for l in lines: out.write(l + "\n")
base = json.loads(lines[0])
for config, dims in [("warp_size=64", {"batch": 8}), ("%%garbage", {"batch": 8}), (base["config"], {"batch": -5}),
                     (base["config"], {"batch": 0}), (base["config"], {"batch": 9223372036854775807}), (base["config"], {})]:
    r = dict(base, config=config, dims=dims)
    out.write(json.dumps(r) + "\n")
PY
run "db stats on unusable records" "$WORK/stats.json" db stats --db "$WORK/dirty.jsonl" --json
check "db stats counts the unusable records" json_check "$WORK/stats.json" 'assert d["unusable"] == 6, d["unusable"]'
if [[ $(grep -c "record ignored" "$WORK/stats.json.err") -eq 6 ]]; then pass "each unusable record named"; else
  fail "each unusable record named" "$(head -c 400 "$WORK/stats.json.err")"; fi
run "train reports ignored records" "$WORK/train_dirty.json" train --db "$WORK/dirty.jsonl" --out "$WORK/d.policy" \
  --critic-epochs 5 --policy-steps 5 --json
check "train reports the ignored records" json_check "$WORK/train_dirty.json" 'assert d["records_ignored"] == 6, d'

# --- 10. Option values and names --------------------------------------------------------------------------
expect_bad "--rounds beyond int names the option" "--rounds" measure --workload bert_ffn --dims tokens=8 --rounds 99999999999
expect_bad "dims of INT64_MAX are out of range, not 'not a positive integer'" "outside its range" \
  measure --workload bert_ffn --dims tokens=9223372036854775807
expect_bad "dims beyond INT64_MAX" "[1, 9223372036854775807]" measure --workload bert_ffn --dims tokens=9223372036854775808
for batch in 0 -1; do
  expect_bad "tune --batch $batch" "--batch must be in [1, 4096]" \
    tune --workload dlrm_mlp --shapes batch=1 --agent random --budget 1 --db "$WORK/b.jsonl" --batch "$batch"
done
expect_bad "tune --max-failures -1" "--max-failures must be in" \
  tune --workload dlrm_mlp --shapes batch=1 --agent random --budget 1 --db "$WORK/b.jsonl" --max-failures -1
for share in 1 -0.1; do
  expect_bad "tune --recheck-share $share" "--recheck-share must be in [0, 1)" \
    tune --workload dlrm_mlp --shapes batch=1 --agent random --budget 1 --db "$WORK/b.jsonl" --recheck-share "$share"
done
for share in 1 -0.1; do
  expect_bad "tune --probe-share $share" "--probe-share must be in [0, 1)" \
    tune --workload dlrm_mlp --shapes batch=1 --agent random --budget 1 --db "$WORK/b.jsonl" --probe-share "$share"
done
expect_bad "tune shares summing to 1" "must sum to below 1" \
  tune --workload dlrm_mlp --shapes batch=1 --agent random --budget 1 --db "$WORK/b.jsonl" --probe-share 0.5 \
  --recheck-share 0.5
expect_bad "tune --leader-climbs with another agent" "--leader-climbs applies to the rl agent only" \
  tune --workload dlrm_mlp --shapes batch=1 --agent random --budget 1 --db "$WORK/b.jsonl" --leader-climbs
expect_bad "tune --campaign ''" "campaign name" \
  tune --workload dlrm_mlp --shapes batch=1 --agent random --budget 1 --db "$WORK/b.jsonl" --campaign ""
expect_bad "replay --budget -5" "--budget must be in" replay --db "$WORK/db.jsonl" --budget -5
expect_bad "replay --agent ," "empty name" replay --db "$WORK/db.jsonl" --agent ,
sed 's/"name": "tiny_mlp"/"name": "tiny_mlp", "name": "renamed"/' "$SOURCE_DIR/tests/data/tiny_mlp.json" >"$WORK/dup.json"
expect_bad "a duplicate key in a workload" "key 'name' appears twice" space --workload "$WORK/dup.json"

cli_test_finish
