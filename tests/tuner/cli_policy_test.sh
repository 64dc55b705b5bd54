#!/usr/bin/env bash
# crmap train / export / query / evaluate end to end on the real backend with a tiny database (dlrm_mlp, two
# shapes, 24 random measurements of 1 round), and their bad input: a truncated policy, a missing dim, a policy
# without tuned shapes given to evaluate, an option out of range. Bad input: exit status 2 and one
# "crmap: error:" line naming the problem.
# $1: the crmap binary; $2: write_test_policy (tests/tuner/hook/write_test_policy.cpp).
set -u
crmap=$(realpath "$1")
write_test_policy=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/crmap_cli_policy.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
python=/usr/bin/python3

# expect_bad NAME KEYWORD ARGS...
expect_bad() {
  local name=$1 keyword=$2
  shift 2
  "$crmap" "$@" >"$work/bad.out" 2>"$work/bad.err"
  local status=$?
  if [ "$status" -ne 2 ]; then
    fail "$name: exit status $status, expected 2; stderr: $(head -c 300 "$work/bad.err")"
  elif [ "$(wc -l <"$work/bad.err")" -ne 1 ] || ! grep -q "crmap: error:" "$work/bad.err"; then
    fail "$name: expected one 'crmap: error:' line, got: $(cat "$work/bad.err")"
  elif ! grep -qF -- "$keyword" "$work/bad.err"; then
    fail "$name: the message lacks '$keyword': $(cat "$work/bad.err")"
  fi
}

db="$work/tuned.jsonl"
policy="$work/tuned.policy"
"$crmap" tune --workload dlrm_mlp --shapes "batch=1;batch=16" --agent random --budget 24 --rounds 1 --warmup 0 \
  --no-confirm --db "$db" >"$work/tune.out" 2>&1 || fail "tune: $(tail -3 "$work/tune.out")"
# Trained with a relative database path: the policy records it absolute, so evaluate (below, run from
# another directory) finds it.
(cd "$work" && "$crmap" train --db tuned.jsonl --out tuned.policy --critic-epochs 200 --policy-steps 100) \
  >"$work/train.out" 2>&1 || fail "train: $(tail -3 "$work/train.out")"
grep -q "2 tuned shapes" "$work/train.out" || fail "train did not report 2 tuned shapes: $(cat "$work/train.out")"

# export: the table holds both shapes, each with its fastest measured config (largest speedup over the
# default measured side by side; the default itself counts 1).
"$crmap" export --policy "$policy" --format json >"$work/policy.json" || fail "export failed"
"$python" - "$work/policy.json" "$db" <<'PY' || failures=$((failures + 1))
import json, sys
policy = json.load(open(sys.argv[1]))
records = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
def speedup(r):
    ratio = r.get("ratio_to_anchor")
    return 1 / ratio["median"] if ratio and ratio.get("median") else 1.0
ok = policy["workload"] == "dlrm_mlp" and len(policy["table"]) == 2
for entry in policy["table"]:
    batch = entry["dims"]["batch"] if isinstance(entry["dims"], dict) else entry["dims"][0]
    at_shape = [r for r in records if r["dims"]["batch"] == batch and r["status"] == "ok"]
    best = max(speedup(r) for r in at_shape)
    chosen = [r for r in at_shape if r["config"] == entry["config"]]
    if not chosen or speedup(chosen[0]) < best * (1 - 1e-9):
        print(f"FAIL: table entry for batch={batch} is {entry['config']}, not the fastest measured config")
        ok = False
if not ok:
    print("FAIL: exported policy:", {k: policy[k] for k in ("workload", "table")})
sys.exit(0 if ok else 1)
PY

# query: a tuned shape answers from the table, another shape from the policy network.
"$crmap" query --policy "$policy" --dims batch=16 >"$work/q1.out" 2>&1 || fail "query batch=16: $(cat "$work/q1.out")"
grep -q "^source .*table" "$work/q1.out" || fail "batch=16 is tuned but not answered from the table: $(cat "$work/q1.out")"
"$crmap" query --policy "$policy" --dims batch=5 >"$work/q2.out" 2>&1 || fail "query batch=5: $(cat "$work/q2.out")"
grep -q "^source .*policy" "$work/q2.out" || fail "batch=5 not answered by the policy: $(cat "$work/q2.out")"
grep -q "^config .*fuse.fc1=" "$work/q2.out" || fail "query printed no config: $(cat "$work/q2.out")"

# evaluate on a list of shapes: the tuned one (batch=16) is skipped, batch=3 is held out; four methods, each
# with a ratio in (0, 1].
(cd / && "$crmap" evaluate --policy "$policy" --shapes "batch=16;batch=3" --held-out 2 --screen-rounds 1 --rounds 3 \
  --warmup 0 --json) >"$work/evaluate.json" 2>"$work/evaluate.err" || fail "evaluate: $(tail -3 "$work/evaluate.err")"
"$python" - "$work/evaluate.json" <<'PY' || failures=$((failures + 1))
import json, sys
report = json.load(open(sys.argv[1]))
names = [m["method"] for m in report["methods"]]
ok = names == ["crmap policy (hook)", "static plan", "nearest tuned shape", "default config"]
ok = ok and all(0 < m["geo_mean_oracle_ratio"] <= 1 and 0 <= m["ctma"] <= 1 for m in report["methods"])
ok = ok and report["held_out"] == 1 and [s["dims"] for s in report["shapes"]] == [{"batch": 3}]
ok = ok and all(m["worst_dims"] == {"batch": 3} for m in report["methods"])
if not ok:
    print("FAIL: evaluate report:", report)
sys.exit(0 if ok else 1)
PY

# Bad input.
head -c 300 "$policy" >"$work/truncated.policy"
expect_bad "truncated policy" "truncated" query --policy "$work/truncated.policy" --dims batch=5
expect_bad "missing policy" "no such policy file" query --policy "$work/none.policy" --dims batch=5
expect_bad "unknown dim" "the policy has no dim 'tokens'; its dims: batch" query --policy "$policy" --dims tokens=5
expect_bad "train without --out" "--out" train --db "$db"
expect_bad "train on a missing database" "none.jsonl" train --db "$work/none.jsonl" --out "$work/x.policy"
[ -e "$work/x.policy" ] && fail "a failed train left a policy file behind"
expect_bad "held-out out of range" "--held-out" evaluate --policy "$policy" --shapes dlrm_mlp_online --held-out 0
"$write_test_policy" --empty-table "$work/empty_table.policy" dlrm_mlp || fail "write_test_policy --empty-table failed"
expect_bad "evaluate without tuned shapes" "no tuned shapes" \
  evaluate --policy "$work/empty_table.policy" --shapes dlrm_mlp_online --held-out 1 --db "$db"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "cli_policy_test: ok"
