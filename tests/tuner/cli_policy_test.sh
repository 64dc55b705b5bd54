#!/usr/bin/env bash
# crmap train / export / query / evaluate end to end on the real backend with a tiny database (dlrm_mlp, two
# shapes, 24 random measurements of 1 round), and their bad input: a truncated policy, an unknown dim, a policy
# without tuned shapes given to evaluate, an option out of range. Bad input: exit status 2 and one
# "crmap: error:" line naming the problem.
# Usage: cli_policy_test.sh path/to/crmap path/to/write_test_policy (tests/runtime/hook/write_test_policy.cpp)
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_policy "${1:-}"
write_test_policy=$(realpath "${2:?usage: $0 path/to/crmap path/to/write_test_policy}")

db="$WORK/tuned.jsonl"
policy="$WORK/tuned.policy"
run "tune a tiny database" "$WORK/tune.out" tune --workload dlrm_mlp --shapes "batch=1;batch=16" --agent random \
  --budget 24 --rounds 1 --warmup 0 --no-confirm --db "$db"
# Trained with a relative database path: the policy records it absolute, so evaluate (below, run from
# another directory) finds it.
check "train from a relative database path" \
  bash -c 'cd "$1" && "$2" train --db tuned.jsonl --out tuned.policy --critic-epochs 200 --policy-steps 100 >train.out 2>&1 ||
           { tail -3 train.out; exit 1; }' _ "$WORK" "$CRMAP"
check "train reports 2 tuned shapes" grep -q "2 tuned shapes" "$WORK/train.out"
check "train says 24 random measurements show no record noise, so the 5% band alone ties" \
  grep -q "no record noise estimated (too few configs measured at two neighbouring shapes, .*): labels tie within 5%" \
  "$WORK/train.out"
check "train names the incumbent it keeps away from the table" \
  grep -q "incumbent (the static plan, kept away from the table unless a gain beyond 5% is predicted) fuse.fc1=" \
  "$WORK/train.out"

# export: the table holds both shapes, each with a fastest measured config within the noise band (largest
# speedup over the default measured side by side, the default itself counting 1; a config within 5% of it is
# tied: config_scores.h's NoiseAwareLabel).
run "export" "$WORK/policy.json" export --policy "$policy" --format json
check "the table holds each shape's fastest measured config, within the noise band" "$python" - "$WORK/policy.json" "$db" <<'PY'
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
    if not chosen or best > speedup(chosen[0]) * 1.05 * (1 + 1e-9):
        print(f"table entry for batch={batch} is {entry['config']}, not within 5% of the fastest measured config")
        ok = False
if not ok:
    print("exported policy:", {k: policy[k] for k in ("workload", "table")})
sys.exit(0 if ok else 1)
PY
# The incumbent is the static plan: the best geometric-mean speedup among configs measured ok at both shapes. 24
# random measurements rarely measure one config at both, so a copy of the database adds one: a measured config's
# record, at both shapes, 5x faster than the default.
check "add a config measured 5x faster at both shapes" "$python" - "$db" "$WORK/plus.jsonl" "$WORK/plus_config" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
default = next(r["ratio_to_anchor"]["anchor"] for r in records if r.get("ratio_to_anchor"))
source = next(r for r in records if r["status"] == "ok" and r["config"] != default and r.get("ratio_to_anchor"))
with open(sys.argv[2], "w") as out:
    for r in records:
        out.write(json.dumps(r) + "\n")
    for batch in (1, 16):
        r = dict(source, dims={"batch": batch}, ratio_to_anchor=dict(source["ratio_to_anchor"], median=0.2))
        out.write(json.dumps(r) + "\n")
open(sys.argv[3], "w").write(source["config"])
PY
run "train with it" "$WORK/plus_train.json" train --db "$WORK/plus.jsonl" --out "$WORK/plus.policy" --critic-epochs 20 \
  --policy-steps 10 --critic-members 0 --json
check "the incumbent is the config measured 5x faster at both shapes" "$python" - "$WORK/plus_train.json" \
  "$WORK/plus_config" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
expected = open(sys.argv[2]).read()
ok = report["incumbent"] == expected and abs(report["switch_margin"] - 0.05) < 1e-6
# The own answer judged in the labels' tie band (never narrower than 5%) counts at least as many tuned shapes.
ok = ok and report["policy_within_noise_of_best"] <= report["policy_within_label_tie_band"] <= report["shapes"]
# ... and shape by shape, in numbers that add up to the counts.
shapes = report["tuned_shapes"]
def count(key, values): return sum(1 for s in shapes if s[key] in values)
ok = ok and len(shapes) == report["shapes"] and all(s["label"] and s["policy_answer"] and s["dims"] for s in shapes)
ok = ok and count("within_5pct", ("best", "tied")) == report["policy_within_noise_of_best"]
ok = ok and count("within_label_tie_band", ("best", "tied")) == report["policy_within_label_tie_band"]
ok = ok and count("within_5pct", ("unknown",)) == report["policy_choice_unmeasured"]
ok = ok and sum(1 for s in shapes if s["policy_answer"] == s["label"]) == report["policy_agrees_with_table"]
if not ok:
    print("incumbent", report["incumbent"], "margin", report["switch_margin"], "expected", expected, report)
sys.exit(0 if ok else 1)
PY

# query: a tuned shape answers from the table, another shape from the policy network.
run "query a tuned shape" "$WORK/q1.out" query --policy "$policy" --dims batch=16
check "a tuned shape is answered from the table" grep -q "^source .*table" "$WORK/q1.out"
run "query another shape" "$WORK/q2.out" query --policy "$policy" --dims batch=5
check "another shape is answered by the policy" grep -q "^source .*policy" "$WORK/q2.out"
check "query prints the config" grep -q "^config .*fuse.fc1=" "$WORK/q2.out"
check "train left each of the 2 tuned shapes out in turn" \
  grep -q "each tuned shape left out in turn: .* of [0-2] (never measured there: [0-2])" "$WORK/train.out"
# The confidence the hook states: a calibration band's rate (export's "calibration"), or with no fold measured
# (no calibration), the raw agreement of the 5 critics: a multiple of 0.2. A table answer states its entry's.
run "query --json" "$WORK/q2.json" query --policy "$policy" --dims batch=5 --json
run "query a tuned shape --json" "$WORK/q1.json" query --policy "$policy" --dims batch=16 --json
check "query states the calibrated confidence" "$python" - "$WORK/q2.json" "$WORK/q1.json" "$WORK/policy.json" <<'PY'
import json, sys
answer, tuned, policy = (json.load(open(path)) for path in sys.argv[1:4])
bins = policy["calibration"]
allowed = [b["rate"] for b in bins] if bins else [k / 5 for k in range(6)]
entry = [e for e in policy["table"] if e["dims"]["batch"] == 16][0]
ok = (any(abs(answer["confidence"] - r) < 1e-6 for r in allowed)
      and abs(tuned["confidence"] - entry["confidence"]) < 1e-6
      and len(bins) in (0, 3) and sum(b["folds"] for b in bins) <= 2)
if not ok:
    print("answers", answer["confidence"], tuned["confidence"], "table entry", entry, "calibration", bins)
sys.exit(0 if ok else 1)
PY

# suggest: the shapes of a list the policy was not tuned on (batch=1 and 16 are; batch=3 twice is one shape),
# each with the policy's decision and confidence, and the list ready for tune --shapes; batch=700, beyond the tuned
# 1-16, comes first and says so.
run "suggest" "$WORK/suggest.json" suggest --policy "$policy" --shapes "batch=1;batch=16;batch=3;batch=700;batch=3" \
  --count 5 --json
check "suggest skips tuned shapes and duplicates" "$python" - "$WORK/suggest.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
batches = [s["dims"]["batch"] for s in d["suggested"]]
ok = (batches == [700, 3] and d["shapes"] == "batch=700;batch=3"
      and [s["beyond_tuned_range"] for s in d["suggested"]] == [True, False]
      and all("fuse.fc1=" in s["config"] and -1 <= s["confidence"] <= 1 for s in d["suggested"]))
if not ok:
    print(d)
sys.exit(0 if ok else 1)
PY
expect_bad "suggest --count 0" "--count must be in [1, 10000]" suggest --policy "$policy" --shapes "batch=3" --count 0
expect_bad "suggest without --shapes" "missing --shapes" suggest --policy "$policy"

# evaluate on a list of shapes, from another directory: the tuned one (batch=16) is skipped, batch=3 is held
# out; four methods, each with a ratio in (0, 1], and a fifth for --compare-policy (a copy of the policy here:
# the same picks, so the same ratios, measured in the same runs).
cp "$policy" "$WORK/copy.policy"
check "evaluate a list of shapes from another directory" \
  bash -c 'cd / && "$1" evaluate --policy "$2" --shapes "batch=16;batch=3" --held-out 2 --screen-rounds 1 --rounds 3 \
           --confirm-rounds 6 --warmup 0 --compare-policy "$3/copy.policy" --json >"$3/evaluate.json" 2>"$3/evaluate.err" ||
           { tail -3 "$3/evaluate.err"; exit 1; }' \
  _ "$CRMAP" "$policy" "$WORK"
check "evaluate report" json_check "$WORK/evaluate.json" '
names = [m["method"] for m in d["methods"]]
assert names == ["crmap policy (hook)", "static plan", "nearest tuned shape", "default config",
                 "compared policy (hook)"], names
for s in d["shapes"]:
    assert s["crmap policy (hook)"] == s["compared policy (hook)"], s
assert d["compared_policy"].endswith("copy.policy"), d["compared_policy"]
assert all(0 < m["geo_mean_oracle_ratio"] <= 1 and 0 <= m["ctma"] <= 1 for m in d["methods"]), d["methods"]
assert d["held_out"] == 1 and [s["dims"] for s in d["shapes"]] == [{"batch": 3}], d["shapes"]
assert all(m["worst_dims"] == {"batch": 3} for m in d["methods"]), d["methods"]
# The confirmation run (6 rounds: the fewest with a 95% interval of the median) measured the oracle again beside the
# picks: each ratio has its interval and the figure of the sweep run next to it, and a shape is clearly within,
# clearly missed, or neither.
assert d["confirm_rounds"] == 6 and all(s["confirmed"] for s in d["shapes"]), d
for s in d["shapes"]:
    for name in names:
        r = s[name]
        assert 0 <= r["oracle_ratio_low"] <= r["oracle_ratio"] <= 1 and r["oracle_ratio_low"] <= r["oracle_ratio_high"], r
        assert 0 < r["sweep_oracle_ratio"] <= 1, r
for m in d["methods"]:
    assert m["clearly_within"] + m["clear_misses"] <= d["held_out"] and 0 < m["sweep_geo_mean_oracle_ratio"] <= 1, m
# batch=3 lies within the tuned range (batch 1 to 16): the calibration by range counts it there.
assert d["shapes"][0]["beyond_tuned_range"] is False, d["shapes"]
assert [r["range"] for r in d["calibration_by_range"]] == ["within"], d["calibration_by_range"]
'
# Without a confirmation run the ratios are the sweep's own. batch=40 lies beyond the tuned range.
check "evaluate without a confirmation run" \
  bash -c '"$1" evaluate --policy "$2" --shapes "batch=40" --screen-rounds 1 --rounds 3 --warmup 0 --confirm-rounds 0 \
           --json >"$3/evaluate_unconfirmed.json" 2>"$3/evaluate_unconfirmed.err" || { tail -3 "$3/evaluate_unconfirmed.err"; exit 1; }' \
  _ "$CRMAP" "$policy" "$WORK"
check "unconfirmed ratios are the sweep's" json_check "$WORK/evaluate_unconfirmed.json" '
assert d["confirm_rounds"] == 0 and not any(s["confirmed"] for s in d["shapes"]), d
for s in d["shapes"]:
    for m in d["methods"]:
        r = s[m["method"]]
        # The first run figure: chosen and scored on the same samples, no interval (low 0, high null: infinity).
        assert r["oracle_ratio"] == r["sweep_oracle_ratio"] and r["oracle_ratio_low"] == 0, r
        assert r["oracle_ratio_high"] is None, r
for m in d["methods"]:
    assert m["clearly_within"] == m["clear_misses"] == 0, m
assert [s["beyond_tuned_range"] for s in d["shapes"]] == [True], d["shapes"]
assert [r["range"] for r in d["calibration_by_range"]] == ["beyond"], d["calibration_by_range"]
'

# A policy records the CPU ISA it was tuned on (ONEDNN_MAX_CPU_ISA=SSE41 stands in for another host):
# elsewhere it is refused with exit status 3 and a message naming both ISAs, unless --force.
sse_db="$WORK/sse41.jsonl"
check "tune and train on an SSE4.1-capped host" bash -c 'ONEDNN_MAX_CPU_ISA=SSE41 "$1" tune --workload dlrm_mlp \
    --shapes "batch=2" --agent random --budget 4 --rounds 1 --warmup 0 --cold-samples 0 --no-confirm --db "$2" \
    >/dev/null 2>&1 && "$1" train --db "$2" --out "$3" --critic-epochs 20 --policy-steps 10 >/dev/null 2>&1' \
  _ "$CRMAP" "$sse_db" "$WORK/sse41.policy"
"$CRMAP" query --policy "$WORK/sse41.policy" --dims batch=2 >"$WORK/foreign.out" 2>"$WORK/foreign.err"
code=$?
if [[ $code -eq 3 ]] && grep -q "tuned on a host with CPU ISA 'sse41'" "$WORK/foreign.err" &&
   grep -q -- "--force" "$WORK/foreign.err"; then
  pass "a policy of another ISA is refused (exit 3)"
else
  fail "a policy of another ISA is refused (exit 3)" "exit $code: $(cat "$WORK/foreign.err")"
fi
run "query --force answers from it anyway" "$WORK/forced.out" query --policy "$WORK/sse41.policy" --dims batch=2 --force
check "on a host of its own ISA it is accepted" bash -c \
  'ONEDNN_MAX_CPU_ISA=SSE41 "$1" query --policy "$2" --dims batch=2 >/dev/null' _ "$CRMAP" "$WORK/sse41.policy"

# Bad input.
head -c 300 "$policy" >"$WORK/truncated.policy"
expect_bad "truncated policy" "truncated" query --policy "$WORK/truncated.policy" --dims batch=5
expect_bad "missing policy" "no such policy file" query --policy "$WORK/none.policy" --dims batch=5
expect_bad "unknown dim" "the policy has no dim 'tokens'; its dims: batch" query --policy "$policy" --dims tokens=5
expect_bad "train without --out" "--out" train --db "$db"
expect_bad "train on a missing database" "none.jsonl" train --db "$WORK/none.jsonl" --out "$WORK/x.policy"
expect_bad "train with a switch margin above 1" "--switch-margin must be in [0, 1]" \
  train --db "$db" --out "$WORK/x.policy" --switch-margin 1.5
expect_bad "train with an unknown incumbent rule" "--incumbent nearest: use static or neighbours" \
  train --db "$db" --out "$WORK/x.policy" --incumbent nearest
check "a failed train leaves no policy file" test ! -e "$WORK/x.policy"
run "train with the neighbours' incumbent" "$WORK/neighbours_train.json" train --db "$WORK/plus.jsonl" \
  --out "$WORK/neighbours.policy" --critic-epochs 20 --policy-steps 10 --critic-members 0 --incumbent neighbours --json
run "export it" "$WORK/neighbours.json" export --policy "$WORK/neighbours.policy" --format json
check "the rule is reported and written (the default: static)" "$python" - "$WORK/neighbours_train.json" \
  "$WORK/neighbours.json" "$WORK/plus_train.json" "$WORK/policy.json" <<'PY'
import json, sys
report, policy, plain_report, plain = (json.load(open(path)) for path in sys.argv[1:5])
ok = report["incumbent_rule"] == "neighbours" and policy["neighbour_incumbent"] is True
ok = ok and plain_report["incumbent_rule"] == "static" and plain["neighbour_incumbent"] is False
sys.exit(0 if ok else 1)
PY
expect_bad "held-out out of range" "--held-out" evaluate --policy "$policy" --shapes dlrm_mlp_online --held-out 0
expect_bad "negative confirmation rounds" "--confirm-rounds must be >= 0 and at most 100000" \
  evaluate --policy "$policy" --shapes "batch=3" --confirm-rounds -1
expect_bad "too few confirmation rounds for a tail" "--confirm-rounds must be 0 (no confirmation run) or >= 100" \
  evaluate --policy "$policy" --shapes "batch=3" --objective p95 --rounds 100 --confirm-rounds 20
check "write a policy without tuned shapes" "$write_test_policy" --empty-table "$WORK/empty_table.policy" dlrm_mlp
expect_bad "evaluate without tuned shapes" "no tuned shapes" \
  evaluate --policy "$WORK/empty_table.policy" --shapes dlrm_mlp_online --held-out 1 --db "$db"
expect_bad "compare a policy with itself" "names the policy itself" \
  evaluate --policy "$policy" --compare-policy "$policy" --shapes "batch=3"
check "write a policy of another workload" "$write_test_policy" "$WORK/bert_ffn.policy" bert_ffn
expect_bad "compare with another workload's policy" "compare policies of one workload and search space" \
  evaluate --policy "$policy" --compare-policy "$WORK/bert_ffn.policy" --shapes "batch=3"

cli_test_finish
