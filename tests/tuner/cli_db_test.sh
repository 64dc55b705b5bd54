#!/usr/bin/env bash
# `crmap db` end to end on a small tuning database: one real record from `crmap measure`, hand-written records
# at two shapes of dlrm_mlp (a default-config anchor, better configs, a failure, a LibTorch row), one record of
# an older workload fingerprint, one record of a workload crmap does not know, and a torn last line. Checks
# stats, best (table and JSON), csv, and the error exits. Prints one line per check; exits non-zero if any fails.
# Usage: cli_db_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_db "${1:-}"

# --- the database -----------------------------------------------------------------------------------------
DB="$WORK/db.jsonl"
run "measure --json (the real record)" "$WORK/measure.json" measure --workload dlrm_mlp --dims batch=2 --rounds 2 --json
"$python" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' <"$WORK/measure.json" >"$DB"
"$python" - "$WORK/measure.json" >>"$DB" <<'PY'
import copy, json, sys
real = json.load(open(sys.argv[1]))
default = real["config"]
def config(**knobs):
    parts = []
    for item in default.split(";"):
        name, value = item.split("=", 1)
        parts.append(f"{name}={knobs.get(name.replace('.', '_'), value)}")
    return ";".join(parts)
def record(batch, cfg, median, ratio=None, status="ok", agent="evolution", campaign="c1", **extra):
    r = copy.deepcopy(real)
    r.update(dims={"batch": batch}, config=cfg, status=status, agent=agent, campaign=campaign, seed=7,
             time="2026-01-02T03:04:05Z")
    r.pop("ratio_to_anchor", None)
    if status != "ok":
        r.pop("latency_us", None)
        r["message"] = "no kernel, says oneDNN"
    else:
        r["latency_us"] = {"min": median * 0.9, "median": median, "p90": median * 1.1, "p95": median * 1.2,
                           "p99": median * 1.5, "mean": median, "cv": 0.05, "rounds": 30}
    if ratio is not None:
        r["ratio_to_anchor"] = {"median": ratio, "p10": ratio * 0.95, "p90": ratio * 1.05, "anchor": default}
    r.update(extra)
    return r
rows = [
    # batch=2: in-batch ratios to the default anchor; weights=packed is 2x, threads=1 1.25x.
    record(2, default, 100.0, ratio=1.0, agent="anchor"),
    record(2, config(weights="packed"), 50.0, ratio=0.5),
    record(2, config(threads="1"), 80.0, ratio=0.8),
    record(2, config(precision="bf16"), 0, status="unsupported"),
    record(2, "libtorch", 400.0, ratio=4.0, baseline=True),  # 4x slower than the default, in one run
    # batch=64: no ratios, only medians measured in separate batches.
    record(64, default, 1000.0, agent="anchor", campaign="c2"),
    record(64, config(weights="packed", fuse_fc1="bias+relu"), 500.0, campaign="c2"),
    record(64, config(threads="1"), 900.0, campaign="c2"),
    record(64, "libtorch", 2000.0, campaign="c2", baseline=True),  # no ratio: only a median
    # An older workload file: fast, but never ranked.
    record(2, config(fuse_head="bias+sigmoid"), 1.0, ratio=0.01, workload_fingerprint="0123456789abcdef"),
    # A workload crmap does not know.
    record(8, "custom=1", 10.0, workload="toy_custom", agent="manual", campaign=""),
]
for r in rows:
    print(json.dumps(r))
PY
printf '{"version": 1, "workload": "dlrm_mlp", "dims": {"bat' >>"$DB"  # a torn last line (a crash mid-write)
RECORDS=12

# --- stats ------------------------------------------------------------------------------------------------
run "db stats" "$WORK/stats.txt" db stats --db "$DB"
check "stats counts the records" grep -qE "^records +$RECORDS\$" "$WORK/stats.txt"
check "stats counts the torn line" grep -qE "^torn lines skipped +1\$" "$WORK/stats.txt"
check "stats counts other fingerprints" grep -qE "^other fingerprints +1 " "$WORK/stats.txt"
check "stats warns about the torn line" grep -q "db.jsonl:13: unparsable line skipped (torn write?)" "$WORK/stats.txt.err"
check "stats lists the statuses" grep -qE "^unsupported +1\$" "$WORK/stats.txt"
check "stats lists the agents" grep -qE "^anchor +2\$" "$WORK/stats.txt"
run "db stats --json" "$WORK/stats.json" db stats --db "$DB" --json
check "stats JSON" json_check "$WORK/stats.json" '
assert d["records"] == '$RECORDS', d["records"]
assert d["skipped_torn"] == 1, d["skipped_torn"]
assert d["other_fingerprints"] == 1, d["other_fingerprints"]
assert d["shapes"] == 3, d["shapes"]
assert d["by_workload"] == {"dlrm_mlp": 11, "toy_custom": 1}, d["by_workload"]
assert d["by_status"] == {"ok": 11, "unsupported": 1}, d["by_status"]
assert d["by_campaign"]["c2"] == 4 and d["by_campaign"]["(none)"] == 2, d["by_campaign"]
assert len(d["by_host"]) == 1 and sum(d["by_host"].values()) == '$RECORDS', d["by_host"]
fp = {f["workload"]: f for f in d["fingerprints"]}
assert fp["dlrm_mlp"]["source"] == "built-in" and fp["dlrm_mlp"]["other"] == 1, fp["dlrm_mlp"]
assert fp["toy_custom"]["source"] == "latest record", fp["toy_custom"]
'
run "db stats --workload" "$WORK/stats_w.json" db stats --db "$DB" --workload dlrm_mlp --json
check "stats --workload selects one workload" json_check "$WORK/stats_w.json" '
assert d["records"] == 11 and d["records_in_file"] == '$RECORDS', (d["records"], d["records_in_file"])
assert d["other_fingerprints"] == 1, d["other_fingerprints"]
'

# --- best -------------------------------------------------------------------------------------------------
run "db best" "$WORK/best.txt" db best --db "$DB"
check "best at batch=2 is weights=packed, 2x, 8x LibTorch" \
  grep -qE "^batch=2 +weights=packed +50\.00 +75\.00 +2\.00x +8\.00x +6 +5\$" "$WORK/best.txt"
check "best at batch=64 is packed + fused (ratio of medians), ~4x LibTorch (medians)" \
  grep -qE "^batch=64 +fuse\.fc1=bias\+relu;weights=packed +500\.0 +750\.0 +~2\.00x +~4\.00x +4 +4\$" "$WORK/best.txt"
check "best never ranks the older fingerprint" bash -c "! grep -q 'fuse.head=bias+sigmoid' '$WORK/best.txt'"
check "best says what it left out" grep -q "1 record(s) of other fingerprints not ranked" "$WORK/best.txt"
run "db best --json" "$WORK/best.json" db best --db "$DB" --json
check "best JSON" json_check "$WORK/best.json" '
w = {x["workload"]: x for x in d["workloads"]}
dl = w["dlrm_mlp"]
assert dl["other_fingerprint_records"] == 1, dl["other_fingerprint_records"]
shapes = {s["dims"]["batch"]: s for s in dl["shapes"]}
b2, b64 = shapes[2]["best"], shapes[64]["best"]
assert b2["label"] == "weights=packed", b2
assert abs(b2["speedup_vs_default"] - 2.0) < 1e-9 and b2["speedup_basis"] == "in_batch_ratio", b2
assert abs(b2["vs_libtorch"] - 8.0) < 1e-9 and b2["vs_libtorch_basis"] == "in_batch_ratios", b2
assert shapes[2]["records"] == 6 and shapes[2]["ok"] == 5, shapes[2]
assert b64["label"] == "fuse.fc1=bias+relu;weights=packed", b64
assert abs(b64["speedup_vs_default"] - 2.0) < 1e-9 and b64["speedup_basis"] == "ratio_of_medians", b64
assert abs(b64["vs_libtorch"] - 4.0) < 1e-9 and b64["vs_libtorch_basis"] == "ratio_of_medians", b64
toy = w["toy_custom"]["shapes"][0]["best"]
assert toy["config"] == "custom=1" and toy["speedup_vs_default"] is None, toy
'

# --- csv --------------------------------------------------------------------------------------------------
run "db csv" "$WORK/db.csv" db csv --db "$DB"
check "csv has a header and one row per record" "$python" - "$WORK/db.csv" "$RECORDS" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
header = "time,workload,dims,config,status,median_us,p95_us,p99_us,ratio_to_anchor,max_error,peak_bytes,agent,campaign,seed"
assert rows[0] == header.split(","), rows[0]
assert len(rows) - 1 == int(sys.argv[2]), len(rows) - 1
assert all(len(r) == len(rows[0]) for r in rows), [len(r) for r in rows]
packed = [r for r in rows[1:] if r[2] == "batch=2" and r[3].count("weights=packed") and r[8] == "0.5"]
assert len(packed) == 1 and packed[0][5] == "50", packed
failed = [r for r in rows[1:] if r[4] == "unsupported"]
assert len(failed) == 1 and failed[0][5] == "", failed
PY

# --- errors -----------------------------------------------------------------------------------------------
expect_bad "missing file" "does not exist" db stats --db "$WORK/no_such.jsonl"
expect_bad "unknown subcommand" "stats, best, csv" db frobnicate --db "$DB"
expect_bad "no subcommand" "stats, best, csv" db
expect_bad "missing --db" "--db" db best
expect_bad "unknown workload" "no_such_workload" db best --db "$DB" --workload no_such_workload
"$python" -c 'import json,sys; d=json.load(sys.stdin); d["version"]=99; print(json.dumps(d))' \
  <"$WORK/measure.json" >"$WORK/newer.jsonl"
expect_bad "record from a newer crmap" "line 1: record format version 99 is newer" db csv --db "$WORK/newer.jsonl"

# A file with no parsable record at all (a tuning database overwritten by a JSON report): status 2, not 0.
printf '{\n  "report": 1\n}\n' >"$WORK/overwritten.jsonl"
expect_bad "a file with no parsable record" "holds no parsable record (3 lines skipped)" db stats --db "$WORK/overwritten.jsonl"

cli_test_finish
