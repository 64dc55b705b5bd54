#!/usr/bin/env bash
# Two builds' campaigns side by side over seeds (a change to an agent, e.g. the rl agent's climbs): per seed,
# budgeted.sh runs the campaign and the training with build A (CRMAP_A) into OUT/a_seed<N> (STOP_AFTER=train),
# then the campaign, training and evaluation with build B (CRMAP_B) into OUT/b_seed<N>, whose evaluation measures
# A's policy in the same interleaved runs (COMPARE_WITH): the same tuned shapes (drawn from the seed), the same
# held-out shapes, one oracle per shape. ab_table.py then prints, per workload and seed, both policies' CTMA,
# geo-mean and worst shape, B's geo-mean over A's, and the summary over seeds — one seed's campaign is one draw
# of a random process, so a change is judged over several.
#
# A and B may be one build run two ways: ENV_A and ENV_B are VAR=value words set for that side's budgeted.sh
# (e.g. ENV_A="SHAPE_CHOICE=draws" ENV_B="SHAPE_CHOICE=cover"); CRMAP_A defaults to CRMAP_B when ENV_A or ENV_B
# is given.
#
# Rerunning skips every step whose output exists (budgeted.sh's rule). SHARE, TUNED, HELD_OUT, AGENT, OBJECTIVE
# and LEADER_CLIMBS pass through to budgeted.sh (a side whose build predates --leader-climbs runs without them,
# and its protocol.txt says so; the other side keeps budgeted.sh's default unless ENV_A/ENV_B say otherwise).
#
# usage: [CRMAP_A=<crmap of the baseline>] [CRMAP_B=build/crmap] [ENV_A=..] [ENV_B=..]
#          experiments/policy_accuracy/ab_campaigns.sh --out DIR [--seeds "1 2 3"] [--workloads LIST]
#          [--isa host|avx2] [--rounds N]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
crmap_b=${CRMAP_B:-$here/../../build/crmap}; env_a=${ENV_A:-}; env_b=${ENV_B:-}
crmap_a=${CRMAP_A:-}
[ -n "$crmap_a" ] || [ -z "$env_a$env_b" ] || crmap_a=$crmap_b
[ -n "$crmap_a" ] && [ -x "$crmap_a" ] ||
  { echo "CRMAP_A must name the baseline's crmap (executable), or ENV_A/ENV_B say how one build runs two ways" >&2
    exit 2; }
read -r -a env_a_words <<< "$env_a"  # words, never globbed
read -r -a env_b_words <<< "$env_b"
for word in ${env_a_words[@]+"${env_a_words[@]}"} ${env_b_words[@]+"${env_b_words[@]}"}; do
  [[ "$word" =~ ^[A-Z_][A-Z0-9_]*= ]] || { echo "ENV_A and ENV_B take VAR=value words, not '$word'" >&2; exit 2; }
done
[ "$crmap_a" != "$crmap_b" ] || [ "$env_a" != "$env_b" ] ||
  { echo "A and B are the same build run the same way: give CRMAP_A, or ENV_A/ENV_B that differ" >&2; exit 2; }
[ -x "$crmap_b" ] || { echo "CRMAP_B=$crmap_b is not executable (build crmap first: scripts/build.sh)" >&2; exit 2; }
out=""; seeds="1 2 3"; pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out|--seeds|--workloads|--isa|--rounds)
      [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
      case "$1" in --out) out="$2" ;; --seeds) seeds="$2" ;; *) pass+=("$1" "$2") ;; esac
      shift 2 ;;
    *) echo "usage: [CRMAP_A=<crmap>] [ENV_A=.. ENV_B=..] $0 --out DIR [--seeds LIST] [--workloads LIST]" \
         "[--isa host|avx2] [--rounds N]" >&2
       exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "--out DIR is required (each seed gets a_seed<N> and b_seed<N> in it)" >&2; exit 2; }
for seed in $seeds; do
  [[ "$seed" =~ ^[0-9]+$ ]] || { echo "--seeds takes whole numbers, not '$seed'" >&2; exit 2; }
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
unset COMPARE_WITH BASELINE_CRMAP EXPLORE
for seed in $seeds; do
  echo "== seed $seed: campaigns of build A ($crmap_a${env_a:+, $env_a})" >&2
  env ${env_a_words[@]+"${env_a_words[@]}"} CRMAP="$crmap_a" SEED="$seed" STOP_AFTER=train "$here/budgeted.sh" ${pass[@]+"${pass[@]}"} \
    --out "$out/a_seed$seed"
  echo "== seed $seed: campaigns of build B ($crmap_b${env_b:+, $env_b}), evaluated next to A's policies" >&2
  env ${env_b_words[@]+"${env_b_words[@]}"} CRMAP="$crmap_b" SEED="$seed" COMPARE_WITH="$out/a_seed$seed" "$here/budgeted.sh" \
    ${pass[@]+"${pass[@]}"} --out "$out/b_seed$seed" > /dev/null
done
/usr/bin/python3 "$here/ab_table.py" "$out" | tee "$out/table.md"
