#!/usr/bin/env bash
# Two builds' training side by side on campaigns already run (a change to `crmap train`, e.g. how labels are
# chosen): the campaigns stay fixed, so the comparison is paired and free of the seed-to-seed spread of
# campaigns. For the N-th SOURCE folder (a budgeted.sh or ab_campaigns.sh output: <w>.jsonl and <w>_tune.json),
# OUT/b_seed<N> gets copies of both; budgeted.sh then trains <w>.policy with build B (CRMAP_B, default this
# tree's build) and <w>.baseline.policy with build A (CRMAP_A, as BASELINE_CRMAP), and `evaluate
# --compare-policy` measures both in the same interleaved runs against one oracle per held-out shape. ab_table.py
# prints the table ("seed" N is the N-th source, named in OUT/sources.txt). A source without a workload's
# campaign is skipped for it. The copies are removed once evaluated (the policies and reports stay; each
# policy's training metadata names the copy's path, gone, and its digest, which is the source's <w>.jsonl's).
# Rerunning copies them again and skips every step whose output exists (budgeted.sh's rule).
#
# The sources must have been measured at the ISA given here (--isa avx2 for folders measured with oneDNN capped
# at AVX2): the oracle is measured now, the labels came from then. HELD_OUT, HELD_OUT_SEED, OBJECTIVE (and SHARE,
# TUNED for the budgets budgeted.sh prints) pass through to budgeted.sh; each b_seed<N> keeps its source's
# protocol.txt (with the held-out seed, when given) and budgets.txt, and source.txt names the source (a rerun with
# the sources in another order is refused).
#
# usage: CRMAP_A=<crmap of the baseline> [CRMAP_B=build/crmap]
#          experiments/policy_accuracy/ab_training.sh --out DIR --workloads LIST [--isa host|avx2] [--rounds N]
#          SOURCE...
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
crmap_b=${CRMAP_B:-$here/../../build/crmap}; crmap_a=${CRMAP_A:-}
[ -n "$crmap_a" ] && [ -x "$crmap_a" ] || { echo "CRMAP_A must name the baseline's crmap (executable)" >&2; exit 2; }
[ -x "$crmap_b" ] || { echo "CRMAP_B=$crmap_b is not executable (build crmap first: scripts/build.sh)" >&2; exit 2; }
[ "$(readlink -f "$crmap_a")" != "$(readlink -f "$crmap_b")" ] ||
  { echo "CRMAP_A and CRMAP_B are one build" >&2; exit 2; }
out=""; workloads=""; pass=(); sources=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out|--workloads|--isa|--rounds)
      [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
      case "$1" in --out) out="$2" ;; --workloads) workloads="$2"; pass+=("$1" "$2") ;; *) pass+=("$1" "$2") ;; esac
      shift 2 ;;
    -*) echo "usage: CRMAP_A=<crmap> $0 --out DIR --workloads LIST [--isa host|avx2] [--rounds N] SOURCE..." >&2
        exit 2 ;;
    *) [ -d "$1" ] || { echo "source '$1' is not a folder" >&2; exit 2; }
       sources+=("$(cd "$1" && pwd)"); shift ;;
  esac
done
[ -n "$out" ] || { echo "--out DIR is required (each source gets b_seed<N> in it)" >&2; exit 2; }
[ -n "$workloads" ] || { echo "--workloads LIST is required" >&2; exit 2; }
[ ${#sources[@]} -gt 0 ] || { echo "name at least one SOURCE folder with campaigns in it" >&2; exit 2; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
unset COMPARE_WITH EXPLORE STOP_AFTER
n=0
: > "$out/sources.txt.tmp"
for source in "${sources[@]}"; do
  n=$((n + 1))
  named="$(realpath --relative-to="$here/../.." "$source")"
  echo "$n $named" >> "$out/sources.txt.tmp"
  dir="$out/b_seed$n"
  mkdir -p "$dir"
  if [ -s "$dir/source.txt" ] && [ "$(cat "$dir/source.txt")" != "$named" ]; then
    echo "$dir holds the results of $(cat "$dir/source.txt"), not of $named: give the sources in their first" \
      "order, or another --out" >&2
    exit 2
  fi
  echo "$named" > "$dir/source.txt"
  have=""
  for workload in $workloads; do
    [ -s "$source/$workload.jsonl" ] && [ -s "$source/${workload}_tune.json" ] || continue
    [ -s "$dir/$workload.jsonl" ] || cp "$source/$workload.jsonl" "$dir/$workload.jsonl"
    [ -s "$dir/${workload}_tune.json" ] || cp "$source/${workload}_tune.json" "$dir/${workload}_tune.json"
    have="$have $workload"
  done
  [ -n "$have" ] || { echo "== source $n ($source): none of the workloads' campaigns, skipped" >&2; continue; }
  echo "== source $n ($source):$have" >&2
  pass_here=()
  for ((i = 0; i < ${#pass[@]}; i += 2)); do
    [ "${pass[i]}" = --workloads ] && pass_here+=(--workloads "${have# }") || pass_here+=("${pass[i]}" "${pass[i + 1]}")
  done
  CRMAP="$crmap_b" BASELINE_CRMAP="$crmap_a" "$here/budgeted.sh" "${pass_here[@]}" --out "$dir" > /dev/null
  held_out_line="$(sed -n 's/.*agent [a-z]* seed [0-9]*; //p' "$dir/protocol.txt" | head -1)"
  held_out_seed_line="$(grep '^held-out shapes drawn with seed' "$dir/protocol.txt" || true)"
  # budgeted.sh wrote its own protocol and budgets (of a campaign it did not run): the source's stand
  { echo "campaigns (not run here) from $named, whose protocol was:"
    cat "$source/protocol.txt" 2>/dev/null || echo "(no protocol.txt)"
    echo "evaluated here: $held_out_line"
    [ -z "$held_out_seed_line" ] || echo "$held_out_seed_line"; } > "$dir/protocol.txt"
  [ ! -s "$source/budgets.txt" ] || cp "$source/budgets.txt" "$dir/budgets.txt"
  for workload in $have; do  # the campaigns stay in their source folder (a rerun copies them again)
    rm -f "$dir/$workload.jsonl" "$dir/${workload}_tune.json"
  done
done
mv "$out/sources.txt.tmp" "$out/sources.txt"
/usr/bin/python3 "$here/ab_table.py" "$out" | tee "$out/table.md"
