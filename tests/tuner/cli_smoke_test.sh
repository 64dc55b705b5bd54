#!/usr/bin/env bash
# The crmap CLI end to end on good input: listing, space JSON, one measurement, a comparison with the LibTorch
# baseline, and --out. Prints one line per check; exits non-zero if any check fails.
# Usage: cli_smoke_test.sh path/to/crmap
set -u
source "$(dirname "$0")/cli_test_lib.sh"
cli_test_init cli_smoke "${1:-}"

# --- workloads --------------------------------------------------------------------------------------------
run "workloads" "$WORK/workloads.txt" workloads
for name in bert_ffn bert_attention resnet_bottleneck resnet_stem dlrm_mlp; do
  check "workloads lists $name" grep -q "^$name " "$WORK/workloads.txt"
done

# --- space --json -----------------------------------------------------------------------------------------
run "space --json" "$WORK/space.json" space --workload bert_ffn --json
check "space JSON is valid" json_valid "$WORK/space.json"
check "space JSON has knobs" json_check "$WORK/space.json" '
names = [k["name"] for k in d["knobs"]]
assert d["workload"] == "bert_ffn", d["workload"]
assert "fuse.fc1" in names and "precision" in names and "threads" in names, names
assert "layout" not in names, names
for k in d["knobs"]:
    assert k["default"] in k["values"], k
assert d["size"]["plan"] > 1 and d["size"]["total"] == d["size"]["plan"] * d["size"]["runtime"], d["size"]
'

# --- space --runnable: every plan config compiled once, bf16 runnable exactly where the host has it ---------
run "space --runnable --json" "$WORK/runnable.json" space --workload bert_ffn --runnable --dims tokens=8 --json
check "space --runnable counts every plan config" json_check "$WORK/runnable.json" '
r = d["runnable"]
assert r["dims"] == {"tokens": 8}, r["dims"]
assert r["plan_configs"] == d["size"]["plan"], r
assert r["runnable"] + r["refused"] + r["failed"] == r["plan_configs"], r
assert len(r["not_runnable"]) == r["refused"] + r["failed"], r
for s in r["not_runnable"]:
    assert "precision=bf16" in s["config"] and s["status"] == "unsupported" and s["message"], s
assert r["refused"] in (0, r["plan_configs"] // 2), r
if r["refused"]:
    bf16 = {"knob": "precision", "value": "bf16", "configs": r["refused"], "not_runnable": r["refused"]}
    assert r["by_value"] == [bf16], r
'
run "space --runnable (text)" "$WORK/runnable.txt" space --workload bert_ffn --runnable
check "space --runnable says how many run" grep -q "^runnable on this host at tokens=128: [0-9]* of 72 plan configs" \
  "$WORK/runnable.txt"

# --- measure --json ---------------------------------------------------------------------------------------
run "measure --json" "$WORK/measure.json" measure --workload dlrm_mlp --dims batch=4 --rounds 3 --json
check "measure JSON record" json_check "$WORK/measure.json" '
assert d["status"] == "ok", d.get("status")
assert d["workload"] == "dlrm_mlp", d["workload"]
assert d["dims"] == {"batch": 4}, d["dims"]
lat = d["latency_us"]
for key in ("median", "p95", "p99"):
    assert key in lat and lat[key] > 0, (key, lat)
assert lat["rounds"] == 3, lat
assert lat["median"] <= lat["p95"] <= lat["p99"], lat
assert d["peak_bytes"] > 0, d["peak_bytes"]
assert 0 <= d["scaled_error"] <= d["accuracy_budget"] == 1e-4, (d["scaled_error"], d.get("accuracy_budget"))
assert 0 <= d["max_error"] and 0 <= d["max_rel_error"], d
import os
if os.environ.get("ONEDNN_MAX_CPU_ISA") == "AVX2":  # the AVX2 twin of this test really runs capped
    assert d["host"]["isa"] == "avx2", d["host"]
assert isinstance(d["kernels"], list) and len(d["kernels"]) > 0, d["kernels"]
assert all(k["impl"] for k in d["kernels"]), d["kernels"]
for key in ("version", "workload_fingerprint", "space_fingerprint", "config", "config_id", "host", "time"):
    assert key in d, key
'

# --- compare with the LibTorch peers -----------------------------------------------------------------------
run "compare --json" "$WORK/compare.json" compare --workload dlrm_mlp --dims batch=4 -c default -c threads=1 \
  --rounds 3 --baseline libtorch --json
check "compare JSON: the configs, then the peers, each validated" json_check "$WORK/compare.json" '
r = d["results"]
configs = [x for x in r if not x.get("baseline")]
peers = [x for x in r if x.get("baseline")]
assert len(configs) == 2 and r[:2] == configs, [x["config"] for x in r]
labels = [x["config"] for x in peers]
assert labels[0] == "libtorch", labels  # eager, the BLAS as installed
assert "libtorch[mkldnn]" in labels, labels  # dlrm_mlp has linear ops: LibTorch oneDNN path too
for x in peers:
    assert "config_id" not in x, x
    assert x["status"] == "ok", (x["config"], x.get("message"))
    assert x["validated"] is True and x["scaled_error"] <= x["accuracy_budget"], x
assert r[0]["config"] != r[1]["config"], r[0]["config"]
'
# A peer with another OpenBLAS core runs in a child process (crmap peer-worker), validated like the others.
mkdir -p "$WORK/tmp"
TMPDIR="$WORK/tmp" run "compare with a child-process peer" "$WORK/compare_child.json" compare --workload dlrm_mlp --dims batch=4 \
  -c default --rounds 3 --cold-samples 1 --baseline "libtorch,libtorch[openblas=Haswell]" --json
check "the child-process peer ran, validated, with its own timing" json_check "$WORK/compare_child.json" '
r = d["results"]
assert [x["config"] for x in r[1:]] == ["libtorch", "libtorch[openblas=Haswell]"], [x["config"] for x in r]
child = r[2]
assert child["status"] == "ok", child.get("message")
assert child["validated"] is True and child["scaled_error"] <= child["accuracy_budget"], child
assert child["latency_us"]["rounds"] == 3 and child["latency_us"]["median"] > 0, child["latency_us"]
assert child["cold_latency_us"]["samples"] == 1, child.get("cold_latency_us")
'
check "the peer process removed its files" test -z "$(ls -A "$WORK/tmp")"

# --- --log-level: the logs users see (progress, warnings) follow it; results do not ---------------------------
check "--log-level error leaves stderr empty and stdout whole" bash -c '
  "$1" --log-level error measure --workload dlrm_mlp --dims batch=4 --rounds 3 --cold-samples 0 >"$2" 2>"$2.err" &&
  [ ! -s "$2.err" ] && grep -q "^latency" "$2"' _ "$CRMAP" "$WORK/quiet.txt"

# --- --out writes the same JSON ---------------------------------------------------------------------------
run "compare --out" "$WORK/compare_out_stdout.json" compare --workload dlrm_mlp --dims batch=4 -c default \
  -c threads=1 --rounds 3 --json --out "$WORK/compare_out.json"
check "--out file exists" test -s "$WORK/compare_out.json"
check "--out equals stdout" cmp "$WORK/compare_out.json" "$WORK/compare_out_stdout.json"
check "--out is valid JSON" json_valid "$WORK/compare_out.json"
run "measure --out" "$WORK/measure_out_stdout.json" measure --workload dlrm_mlp --dims batch=4 --rounds 3 --json \
  --out "$WORK/measure_out.json"
check "measure --out equals stdout" cmp "$WORK/measure_out.json" "$WORK/measure_out_stdout.json"
check "no temporary files left" test -z "$(find "$WORK" -name '*.tmp.*')"

cli_test_finish
