#!/usr/bin/env bash
# The peer as Debian installs it on a host whose CPU OpenBLAS misdetects (issue 8: an AVX-512 Xeon VM taken
# for `Prescott`, SSE3): OPENBLAS_CORETYPE=Prescott stands in for that misdetection on this host. Then
# `--baseline libtorch` must notice that the installed core is older than the host's ISA and also measure
# LibTorch with the matching core in a child process, validated, next to LibTorch's oneDNN path; claims go
# against the fastest. bert_ffn at 8 and 128 tokens, the default and the best-known plan, 30 interleaved rounds.
# Writes results/crippled_blas/{version.txt,bert_ffn_tokens_N.json,table.md}.
#
# usage: experiments/peer_libtorch/crippled_blas.sh [--rounds 30]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../common.sh"
rounds=30
[ "${1:-}" = --rounds ] && rounds="$2"
crmap_require_built
out="$here/results/crippled_blas"
mkdir -p "$out"
export OPENBLAS_CORETYPE=Prescott
"$crmap" version > "$out/version.txt"
echo "environment: OPENBLAS_CORETYPE=Prescott (the misdetected core of issue 8)" >> "$out/version.txt"
for tokens in 8 128; do
  "$crmap" compare --workload bert_ffn --dims "tokens=$tokens" -c default \
    -c "fuse.fc1=bias+gelu_erf;fuse.fc2=bias+add;weights=packed" --baseline libtorch --rounds "$rounds" \
    --json --out "$out/bert_ffn_tokens_$tokens.json" >/dev/null
done
"$python" - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
lines = ["| tokens | row | median us | p95 us | speedup over default [p10-p90] | scaled err |", "|---|---|---|---|---|---|"]
for path in sorted(glob.glob(os.path.join(out, "bert_ffn_tokens_*.json")), key=lambda p: int(p.split("_")[-1][:-5])):
    data = json.load(open(path))
    for r in data["results"]:
        default = data["results"][0]["config"]
        label = r["config"] if r.get("baseline") else ("default" if r["config"] == default else "best-known plan")
        q = r["ratio_to_anchor"]
        lines.append(f"| {data['dims']['tokens']} | {label} | {r['latency_us']['median']:.0f} | {r['latency_us']['p95']:.0f} | "
                     f"{1 / q['median']:.2f}x [{1 / q['p90']:.2f}-{1 / q['p10']:.2f}] | {r.get('scaled_error', float('nan')):.1e} |")
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
