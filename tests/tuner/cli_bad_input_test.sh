#!/usr/bin/env bash
# Bad input to the crmap CLI: every case must exit with status 2 and print exactly one line to stderr, of the
# form "crmap: error: ..." naming the problem; no output file may be left behind.
# Usage: cli_bad_input_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_bad_input "${1:-}"

# A workload file with broken JSON, and one with an unknown op.
printf '{"format": "crmap.workload/1", "name": ' >"$WORK/broken.json"
cat >"$WORK/unknown_op.json" <<'JSON'
{"format": "crmap.workload/1", "name": "custom", "dims": {"rows": {"min": 1, "max": 8}},
 "inputs": [{"name": "x", "shape": ["rows", 8]}],
 "ops": [{"name": "y", "op": "frobnicate", "inputs": ["x"]}],
 "outputs": ["y"]}
JSON

expect_bad "unknown command" "unknown command 'frobnicate'" frobnicate
expect_bad "unknown workload" "bert_ffn, dlrm_mlp" measure --workload no_such_workload --dims tokens=1
expect_bad "unknown workload (space)" "no_such_workload" space --workload no_such_workload
expect_bad "unknown knob" "unknown knob 'nope'" measure --workload bert_ffn --dims tokens=8 --config nope=1
expect_bad "unknown knob value" "allowed: f32, bf16" measure --workload bert_ffn --dims tokens=8 --config precision=f16
expect_bad "dims out of range" "[1, 4096]" measure --workload bert_ffn --dims tokens=999999
expect_bad "missing dim" "missing dim 'seq'" measure --workload bert_attention --dims batch=1
expect_bad "missing --dims" "--dims" measure --workload bert_ffn
expect_bad "unknown dim" "no dim 'heads'" measure --workload bert_ffn --dims tokens=8,heads=2
expect_bad "malformed dims" "tokens" measure --workload bert_ffn --dims tokens=abc
expect_bad "malformed JSON config" "malformed JSON" measure --workload bert_ffn --dims tokens=8 --config '{bad'
expect_bad "malformed workload file" "malformed JSON" measure --workload "$WORK/broken.json" --dims rows=1
expect_bad "workload file with an unknown op" "unknown op 'frobnicate'" space --workload "$WORK/unknown_op.json"
expect_bad "space --dims without --runnable" "give --runnable too" space --workload bert_ffn --dims tokens=8
expect_bad "space --runnable at dims out of range" "[1, 4096]" space --workload bert_ffn --runnable --dims tokens=999999
expect_bad "space --runnable at malformed dims" "tokens" space --workload bert_ffn --runnable --dims tokens=abc
expect_bad "unknown baseline" "unknown baseline 'tensorflow'" \
  compare --workload dlrm_mlp --dims batch=1 -c default --rounds 1 --baseline tensorflow
expect_bad "unknown shape choice" "'spread' is unknown; allowed: draws" \
  tune --workload bert_ffn --shapes bert_ffn_chat --shape-choice spread --budget 1 --db "$WORK/choice.jsonl"
expect_bad "a cover of too many shapes" "at most 64 shapes" \
  tune --workload bert_ffn --shapes bert_ffn_chat --shape-choice cover --num-shapes 65 --budget 1 \
  --db "$WORK/choice.jsonl"
expect_bad "the shape choices named" "edges (each dim's extremes" \
  tune --workload bert_ffn --shapes bert_ffn_chat --shape-choice spread --budget 1 --db "$WORK/choice.jsonl"
expect_bad "quantiles among the shape choices named" "quantiles (one shape per equal share" \
  tune --workload bert_ffn --shapes bert_ffn_chat --shape-choice spread --budget 1 --db "$WORK/choice.jsonl"
expect_bad "edges first over too many shapes" "shape choice edges: a cover takes at most 64 shapes" \
  tune --workload bert_ffn --shapes bert_ffn_chat --shape-choice edges --num-shapes 65 --budget 1 \
  --db "$WORK/choice.jsonl"
if [[ -e "$WORK/choice.jsonl" ]]; then
  fail "no database left by a refused shape choice" "$WORK/choice.jsonl has content"
else pass "no database left by a refused shape choice"; fi
expect_bad "unknown flag" "frobnicate" measure --workload bert_ffn --dims tokens=8 --frobnicate
expect_bad "rounds out of range" "--rounds" measure --workload bert_ffn --dims tokens=8 --rounds 0
expect_bad "unknown log level" "allowed: debug, info, warn, error" --log-level loud version
# --json: no progress line at all (off a terminal, progress is quiet only for its first 2 seconds, and this check
# must not depend on how fast the machine gets to the error).
expect_bad "over the memory budget" "memory budget" \
  measure --workload bert_ffn --dims tokens=128 --memory-budget 1000 --rounds 1 --json

expect_bad "--out in a missing folder" "folder $WORK/no_such_folder does not exist" \
  measure --workload bert_ffn --dims tokens=8 --rounds 1 --out "$WORK/no_such_folder/x.json"
expect_bad "--out naming a folder" "it is a folder" sweep --workload dlrm_mlp --dims batch=1 --out "$WORK"
expect_bad "train --out in a missing folder" "does not exist" train --db "$WORK/none.jsonl" --out "$WORK/no_such_folder/p.policy"

# --out on bad input: the file is not created.
"$CRMAP" measure --workload bert_ffn --dims tokens=999999 --out "$WORK/bad_dims.json" >/dev/null 2>&1
if [[ -e "$WORK/bad_dims.json" ]]; then fail "--out on bad dims" "$WORK/bad_dims.json was created"; else
  pass "--out on bad dims" "no file"; fi

"$CRMAP" compare --workload bert_ffn --dims tokens=8 -c default -c nope=1 --out "$WORK/bad_config.json" \
  >/dev/null 2>&1
if [[ -e "$WORK/bad_config.json" ]]; then fail "--out on bad config" "$WORK/bad_config.json was created"; else
  pass "--out on bad config" "no file"; fi

# Over the memory budget with --out: exit 2, neither the file nor a temporary left behind.
"$CRMAP" measure --workload bert_ffn --dims tokens=128 --memory-budget 1000 --rounds 1 --out "$WORK/over.json" \
  >/dev/null 2>"$WORK/over.err"
status=$?
leftovers=$(find "$WORK" -maxdepth 1 -name 'over.json*' | wc -l)
if [[ $status -ne 2 ]]; then
  fail "--out over the memory budget" "exit status $status, expected 2: $(cat "$WORK/over.err")"
elif [[ $leftovers -ne 0 ]]; then
  fail "--out over the memory budget" "left files behind: $(find "$WORK" -maxdepth 1 -name 'over.json*')"
else
  pass "--out over the memory budget" "exit 2, no over.json, no over.json.tmp.*"
fi

cli_test_finish
