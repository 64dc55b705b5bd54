#!/usr/bin/env bash
# Policy accuracy under a fixed campaign budget (issue 12's protocol): per workload, an `rl` campaign spends
# SHARE (default 10%) of the exhaustive space of its tuned shapes — floor(SHARE x plan configs this host runs x
# TUNED shapes) measurements (BUDGET_OF, below) over TUNED shapes of the workload's distribution — 24 where crmap
# runs no bf16 (`crmap version`: "bf16 unsupported", e.g. under --isa avx2), 8 where it does, and 8 for resnet_stem,
# mobilenet_v2_block and resnet_bottleneck, whose distributions hold 12-20 shapes (8 everywhere before 2026-12-07;
# RESULTS.md "Twenty-four tuned shapes at 10% each instead of eight" and "... on the bf16 host") — then
# `crmap train` learns a policy from that database and `crmap evaluate` measures it on HELD_OUT (8) shapes of the
# same distribution that were not
# tuned, each against its exhaustive oracle, next to the static plan, the nearest tuned shape's config and the
# default (one interleaved run of --rounds rounds per shape, default 30, at OBJECTIVE: median, p95 or p99). The held-out
# workloads (datasets/heldout, never used to develop the method) get a table of their own.
#
# Writes, per workload, <w>.jsonl (the campaign), <w>_train.json, <w>.policy, <w>_evaluate.json, and table.md;
# into results/budgeted/<the ISA crmap runs on>/ unless --out is given. Rerunning skips every step whose
# output exists. Roughly 5-20 minutes per workload on 2 cores (the oracle is exhaustive).
#
# A before/after comparison on the same campaign: BASELINE_CRMAP=<another crmap binary> also trains
# <w>.baseline.policy from the database with that build, and `evaluate --compare-policy` measures its picks in
# the same interleaved runs as the policy's. STOP_AFTER=tune|train ends each workload after that step.
#
# RECHECK=<share> (e.g. 0.2) keeps that share of the campaign's budget back from the agent to measure each tuned
# shape's two leading configs again (`crmap tune --recheck-share`, tuner/leader_recheck.h). PROBE=<share> (e.g.
# 0.05) keeps that share back to measure the tuned shapes' labels at every thread count above the tuned range
# (`crmap tune --probe-share`, tuner/range_probe.h).
#
# LEADER_CLIMBS=1 runs the rl agent's campaigns with leader climbs (`crmap tune --leader-climbs`, docs/agents.md),
# 0 without; empty (the default): on for campaigns over 24 shapes where crmap runs no bf16 — what RESULTS.md
# "Leader climbs" judged and adopted — off for others (the 8-shape conv workloads, the bf16 host, the EXPLORE
# campaign) and with a build before the flag. LEADER_CLIMBS=1 with another AGENT or such a build: status 2. Each
# campaign's <w>_tune.json says whether they ran (`leader_climbs`).
#
# BUDGET_OF=runnable (the default) counts the plan configs this host can run (`crmap space --runnable` at the
# workload's typical dims: on an AVX2 host every bf16 config is refused), so the budget is SHARE of the exhaustive
# search this host could make; BUDGET_OF=plan counts every plan config of the space, as every run before
# 2026-12-07 did (on AVX2 that doubled the share of what runs; builds before `--runnable` need it).
#
# CAMPAIGN_SHAPES=<n> spreads the same budget (still SHARE x plan configs x TUNED) over n shapes of the
# distribution instead of TUNED: fewer shapes, more measurements each.
#
# Active learning over shapes: EXPLORE=<share> (e.g. 0.25) keeps that share of the budget back; the campaign on
# the TUNED shapes spends the rest, `crmap train` learns <w>.stage1.policy from it, `crmap suggest` picks SUGGEST
# (4) shapes of the distribution — those beyond its tuned range first, then where it is least confident
# (<w>_suggest.json) — and a second campaign
# ("explore", <w>_explore_tune.json) spends the share kept back on them, in the same database; the policy is then
# trained on both. COMPARE_WITH=<another results folder> measures that folder's <w>.policy (e.g. from a campaign
# without EXPLORE) in the same interleaved runs (`evaluate --compare-policy`).
#
# usage: experiments/policy_accuracy/budgeted.sh [--workloads LIST] [--isa host|avx2] [--out DIR]
#   (default workloads: the held-out set, then the five built-ins)
#   [--rounds N]  env: SHARE=0.10 TUNED=(24 without bf16, 8 with) HELD_OUT=8 AGENT=rl SEED=1 OBJECTIVE=median BASELINE_CRMAP= STOP_AFTER=
#                      EXPLORE=0 SUGGEST=4 COMPARE_WITH= SHAPE_CHOICE=draws|cover|edges|quantiles CAMPAIGN_SHAPES=TUNED RECHECK=0
#                      PROBE=0 BUDGET_OF=runnable|plan LEADER_CLIMBS=(1 over 24 shapes without bf16, else 0)
#                      TUNE_ROUNDS= (interleaved rounds per campaign measurement; empty: crmap tune's default —
#                      10 at OBJECTIVE=median, 100 / 500 at p95 / p99, which also refuse fewer)
#                      HELD_OUT_SEED= (the seed `crmap evaluate` draws the held-out shapes with; empty: its
#                      default, 101 — the same held-out sample whatever SEED, as every run in RESULTS.md so far)
set -euo pipefail
source "$(dirname "$0")/../common.sh"
results_by_isa=1  # results/budgeted/<the ISA crmap runs on> (avx2 under --isa avx2; version.txt says which host)
crmap_experiment_args "$root/experiments/policy_accuracy/results/budgeted" "$@"
[ "$workloads_given" = 1 ] ||
  workloads="$CRMAP_HELD_OUT bert_ffn bert_attention resnet_bottleneck resnet_stem dlrm_mlp"
share=${SHARE:-0.10}; tuned_given=${TUNED:-}; tuned=${TUNED:-}; held_out=${HELD_OUT:-8}; agent=${AGENT:-rl}; seed=${SEED:-1}
eval_rounds=$rounds; objective=${OBJECTIVE:-median}; baseline_crmap=${BASELINE_CRMAP:-}; stop_after=${STOP_AFTER:-}
case "$stop_after" in ""|tune|train) ;; *) echo "STOP_AFTER must be tune or train" >&2; exit 2 ;; esac
explore=${EXPLORE:-0}; suggest_count=${SUGGEST:-4}; compare_with=${COMPARE_WITH:-}
shape_choice=${SHAPE_CHOICE:-draws}
campaign_shapes_given=${CAMPAIGN_SHAPES:-}
[ -z "$campaign_shapes_given" ] || [[ "$campaign_shapes_given" =~ ^[1-9][0-9]*$ ]] ||
  { echo "CAMPAIGN_SHAPES must be a whole number >= 1" >&2; exit 2; }
case "$shape_choice" in draws|cover|edges|quantiles) ;;
  *) echo "SHAPE_CHOICE must be draws, cover, edges or quantiles" >&2; exit 2 ;; esac
shape_choice_args=()  # draws is every build's default; builds before the flag (ab_campaigns.sh's CRMAP_A) lack it
[ "$shape_choice" = draws ] || shape_choice_args=(--shape-choice "$shape_choice")
budget_of=${BUDGET_OF:-runnable}
case "$budget_of" in runnable|plan) ;; *) echo "BUDGET_OF must be runnable or plan" >&2; exit 2 ;; esac
recheck=${RECHECK:-0}
leader_climbs=${LEADER_CLIMBS:-}
case "$leader_climbs" in ""|0|1) ;; *) echo "LEADER_CLIMBS must be 0 or 1 (empty: by host)" >&2; exit 2 ;; esac
[ "$leader_climbs" != 1 ] || [ "$agent" = rl ] ||
  { echo "LEADER_CLIMBS=1 applies to AGENT=rl only, not '$agent'" >&2; exit 2; }
held_out_seed=${HELD_OUT_SEED:-}
held_out_seed_args=()  # empty: crmap evaluate's default seed
if [ -n "$held_out_seed" ]; then
  [[ "$held_out_seed" =~ ^[0-9]+$ ]] || { echo "HELD_OUT_SEED must be a whole number >= 0" >&2; exit 2; }
  held_out_seed_args=(--seed "$held_out_seed")
fi
tune_rounds=${TUNE_ROUNDS:-}
tune_rounds_args=()  # empty: crmap tune's default (10 rounds per measurement)
if [ -n "$tune_rounds" ]; then
  [[ "$tune_rounds" =~ ^[1-9][0-9]*$ ]] || { echo "TUNE_ROUNDS must be a whole number >= 1" >&2; exit 2; }
  tune_rounds_args=(--rounds "$tune_rounds")
fi
"$python" -c 'import sys; sys.exit(0 if 0 <= float(sys.argv[1]) < 1 else 1)' "$recheck" 2>/dev/null ||
  { echo "RECHECK must be a share in [0, 1)" >&2; exit 2; }
recheck_args=()  # builds before the flag (ab_campaigns.sh's CRMAP_A) lack it
"$python" -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' "$recheck" &&
  recheck_args=(--recheck-share "$recheck")
probe=${PROBE:-0}
"$python" -c 'import sys; sys.exit(0 if 0 <= float(sys.argv[1]) < 1 else 1)' "$probe" 2>/dev/null ||
  { echo "PROBE must be a share in [0, 1)" >&2; exit 2; }
probe_args=()  # builds before the flag (ab_campaigns.sh's CRMAP_A) lack it
"$python" -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' "$probe" &&
  probe_args=(--probe-share "$probe")
"$python" -c 'import sys; sys.exit(0 if 0 <= float(sys.argv[1]) < 1 else 1)' "$explore" 2>/dev/null ||
  { echo "EXPLORE must be a share in [0, 1)" >&2; exit 2; }
exploring=$("$python" -c 'import sys; print(1 if float(sys.argv[1]) > 0 else 0)' "$explore")
[ -z "$compare_with" ] || [ -d "$compare_with" ] || { echo "COMPARE_WITH=$compare_with is not a folder" >&2; exit 2; }
[ -z "$compare_with" ] || [ -z "$baseline_crmap" ] ||
  { echo "BASELINE_CRMAP and COMPARE_WITH both name the policy to compare with: give one" >&2; exit 2; }
[ -z "$baseline_crmap" ] || [ -x "$baseline_crmap" ] || { echo "BASELINE_CRMAP=$baseline_crmap is not executable" >&2; exit 2; }
declare -A distribution=([bert_ffn]=bert_ffn_chat [bert_attention]=bert_attention_short_queries
  [resnet_bottleneck]=resnet_bottleneck_mixed [resnet_stem]=resnet_stem_photos [dlrm_mlp]=dlrm_mlp_online
  [qwen2_mlp]=qwen2_mlp_decode [mobilenet_v2_block]=mobilenet_v2_block_camera
  [dlrm_bottom_mlp]=dlrm_bottom_mlp_serving)
# Distributions of 12-20 distinct shapes: 24 tuned and 8 held-out do not fit, so TUNED defaults to 8 there.
declare -A few_shapes=([resnet_stem]=8 [mobilenet_v2_block]=8 [resnet_bottleneck]=8)
# 24 tuned shapes won at AVX2 and lost on the bf16 host (its thread-count swing labels more small shapes wrongly):
# RESULTS.md, "Twenty-four tuned shapes on the bf16 host".
no_bf16=0
version_text=$("$crmap" version)
grep -q '^host: .*bf16 unsupported' <<< "$version_text" && no_bf16=1
if [ -z "$tuned" ]; then
  if [ "$no_bf16" = 1 ]; then tuned=24 tuned_why="no bf16"
  else tuned=8 tuned_why="bf16"; fi
fi
# Leader climbs won at AVX2 on campaigns over 24 shapes (fresh seeds); nothing else was judged: RESULTS.md, "Leader
# climbs". Builds before the flag (ab_campaigns.sh's CRMAP_A) lack it.
tune_help=$("$crmap" tune --help)
has_leader_flag=0
grep -q -- '--leader-climbs' <<< "$tune_help" && has_leader_flag=1
[ "$leader_climbs" != 1 ] || [ "$has_leader_flag" = 1 ] ||
  { echo "LEADER_CLIMBS=1: $crmap has no --leader-climbs (a build before it)" >&2; exit 2; }
default_leader_climbs=0  # 1: the default turns them on for campaigns over 24 shapes
if [ -n "$leader_climbs" ]; then
  leader_climbs_said="$([ "$leader_climbs" = 1 ] && echo on || echo off) (LEADER_CLIMBS)"
elif [ "$agent" != rl ]; then
  leader_climbs_said="off (agent $agent)"
elif [ "$has_leader_flag" = 0 ]; then
  leader_climbs_said="off (this build has no --leader-climbs)"
elif [ "$no_bf16" = 1 ]; then
  default_leader_climbs=1
  leader_climbs_said="on for campaigns over 24 shapes, off for others (the default where crmap runs no bf16)"
else
  leader_climbs_said="off (the default where crmap runs bf16: behind there, RESULTS.md \"Leader climbs\")"
fi
for workload in $workloads; do
  [ -n "${distribution[$workload]:-}" ] || { echo "no distribution chosen for '$workload' in $0" >&2; exit 2; }
done
plan_configs_said="plan configs"
[ "$budget_of" = plan ] || plan_configs_said="plan configs this host runs"
echo "protocol: share $share of $plan_configs_said x $tuned tuned shapes ($shape_choice), agent $agent seed $seed; $held_out held-out shapes, $eval_rounds rounds, objective $objective" > "$out/protocol.txt"
[ -n "$tuned_given" ] ||
  echo "tuned shapes: $tuned, the default where crmap runs $tuned_why;" \
    "8 for resnet_stem, mobilenet_v2_block and resnet_bottleneck (distributions of 12-20 shapes)" >> "$out/protocol.txt"
[ -z "$tune_rounds" ] || echo "campaign measurements: $tune_rounds interleaved rounds each" >> "$out/protocol.txt"
[ -z "$held_out_seed" ] || echo "held-out shapes drawn with seed $held_out_seed" >> "$out/protocol.txt"
[ "$recheck" = 0 ] || echo "recheck: $recheck of each campaign's budget re-measures the leaders" >> "$out/protocol.txt"
echo "leader climbs: $leader_climbs_said; never in the EXPLORE campaign" >> "$out/protocol.txt"
[ "$probe" = 0 ] ||
  echo "probe: $probe of each campaign's budget measures the labels' thread counts above the tuned range" >> "$out/protocol.txt"
[ -z "$campaign_shapes_given" ] ||
  echo "campaign: that budget spread over $campaign_shapes_given shapes (CAMPAIGN_SHAPES)" >> "$out/protocol.txt"
[ "$exploring" = 0 ] ||
  echo "explore: $explore of each budget on $suggest_count suggested shapes (crmap suggest)" >> "$out/protocol.txt"

for workload in $workloads; do
  w=$(crmap_workload_arg "$workload")
  shapes=$(crmap_distribution_arg "$workload" "${distribution[$workload]}")
  if [ "$budget_of" = plan ]; then
    plan=$("$crmap" space --workload "$w" --json | "$python" -c 'import json,sys; print(json.load(sys.stdin)["size"]["plan"])')
  else
    plan=$("$crmap" space --workload "$w" --runnable --json |
      "$python" -c 'import json,sys; print(json.load(sys.stdin)["runnable"]["runnable"])')
    [ "$plan" -gt 0 ] || { echo "$workload: this host runs none of its plan configs (crmap space --runnable)" >&2; exit 2; }
  fi
  w_tuned=$tuned
  [ -n "$tuned_given" ] || w_tuned=${few_shapes[$workload]:-$tuned}
  campaign_shapes=${campaign_shapes_given:-$w_tuned}
  w_leader_climbs=${leader_climbs:-0}
  if [ "$default_leader_climbs" = 1 ] && [ "$campaign_shapes" = 24 ]; then w_leader_climbs=1; fi
  leader_climbs_args=()
  [ "$w_leader_climbs" = 0 ] || leader_climbs_args=(--leader-climbs)
  budget=$("$python" -c "import math; print(max(1, math.floor($share * $plan * $w_tuned)))")
  db="$out/$workload.jsonl"
  { grep -v "^$workload " "$out/budgets.txt" 2>/dev/null || true; echo "$workload $plan $budget $w_tuned"; } | sort > "$out/budgets.txt.tmp"
  mv "$out/budgets.txt.tmp" "$out/budgets.txt"
  explore_budget=$("$python" -c 'import math, sys; print(math.floor(float(sys.argv[1]) * int(sys.argv[2])))' \
    "$explore" "$budget")
  if [ "$explore_budget" -gt 0 ] && [ -s "$out/${workload}_tune.json" ] && [ ! -s "$out/${workload}_stage1_train.json" ]
  then
    echo "$out/${workload}_tune.json is a campaign run without EXPLORE: give EXPLORE runs a folder of their own" >&2
    exit 2
  fi
  if [ ! -s "$out/${workload}_tune.json" ]; then
    echo "== $workload: $agent campaign, $((budget - explore_budget)) of $budget measurements" \
      "(${share} of $plan $plan_configs_said x $w_tuned shapes), over $campaign_shapes shapes" >&2
    rm -f "$db"
    "$crmap" tune --workload "$w" --shapes "$shapes" --num-shapes "$campaign_shapes" \
      ${shape_choice_args[@]+"${shape_choice_args[@]}"} ${recheck_args[@]+"${recheck_args[@]}"} \
      ${probe_args[@]+"${probe_args[@]}"} ${leader_climbs_args[@]+"${leader_climbs_args[@]}"} --agent "$agent" \
      --seed "$seed" --budget "$((budget - explore_budget))" --db "$db" --no-confirm \
      ${tune_rounds_args[@]+"${tune_rounds_args[@]}"} --objective "$objective" --json \
      > "$out/${workload}_tune.json"
  fi
  if [ "$explore_budget" -gt 0 ] && [ ! -s "$out/${workload}_explore_tune.json" ]; then
    # Each step once: a rerun keeps the shapes suggested before and resumes the explore campaign.
    if [ ! -s "$out/${workload}_suggest.json" ]; then
      echo "== $workload: training on the first campaign, then $suggest_count suggested shapes get" \
        "$explore_budget measurements" >&2
      "$crmap" train --db "$db" --workload "$w" --out "$out/$workload.stage1.policy" --json \
        > "$out/${workload}_stage1_train.json"
      "$crmap" suggest --policy "$out/$workload.stage1.policy" --workload "$w" --shapes "$shapes" \
        --count "$suggest_count" --seed "$seed" --json > "$out/${workload}_suggest.json.tmp"
      mv "$out/${workload}_suggest.json.tmp" "$out/${workload}_suggest.json"
    fi
    suggested=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["shapes"])' \
      "$out/${workload}_suggest.json")
    "$crmap" tune --workload "$w" --shapes "$suggested" --agent "$agent" --seed "$seed" --campaign explore \
      --resume --budget "$explore_budget" --db "$db" --no-confirm ${tune_rounds_args[@]+"${tune_rounds_args[@]}"} \
      --objective "$objective" --json \
      > "$out/${workload}_explore_tune.json"
  fi
  [ "$stop_after" = tune ] && continue
  if [ ! -s "$out/${workload}_train.json" ]; then
    echo "== $workload: training" >&2
    "$crmap" train --db "$db" --workload "$w" --out "$out/$workload.policy" --json > "$out/${workload}_train.json"
  fi
  compare=()
  if [ -n "$baseline_crmap" ]; then
    if [ ! -s "$out/${workload}_baseline_train.json" ]; then
      echo "== $workload: training with the baseline build $baseline_crmap" >&2
      "$baseline_crmap" train --db "$db" --workload "$w" --out "$out/$workload.baseline.policy" --json \
        > "$out/${workload}_baseline_train.json"
    fi
    compare=(--compare-policy "$out/$workload.baseline.policy")
  fi
  [ -z "$compare_with" ] || compare=(--compare-policy "$compare_with/$workload.policy")
  [ "$stop_after" = train ] && continue
  if [ ! -s "$out/${workload}_evaluate.json" ]; then
    echo "== $workload: evaluating on $held_out held-out shapes of $(basename "$shapes" .json)" >&2
    "$crmap" evaluate --policy "$out/$workload.policy" --db "$db" --workload "$w" --shapes "$shapes" \
      --held-out "$held_out" ${held_out_seed_args[@]+"${held_out_seed_args[@]}"} --rounds "$eval_rounds" \
      --objective "$objective" ${compare[@]+"${compare[@]}"} --json \
      --out "$out/${workload}_evaluate.json" >/dev/null
  fi
done
[ -n "$stop_after" ] && exit 0
"$python" "$root/experiments/policy_accuracy/budgeted_table.py" "$out" "$CRMAP_HELD_OUT" | tee "$out/table.md"
