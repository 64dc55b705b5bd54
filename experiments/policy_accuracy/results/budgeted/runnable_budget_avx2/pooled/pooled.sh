#!/usr/bin/env bash
# The three B campaigns of runnable_budget_avx2 pooled per workload (3x the allowed budget), trained, evaluated
# on the held-out sample of seed 505 next to each seed's B policy in turn.
set -euo pipefail
export ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Zen
cd /work/main/experiments/policy_accuracy/results/budgeted/runnable_budget_avx2
crmap=/work/main/build/crmap; h=/work/main/datasets/heldout
declare -A wl=([dlrm_mlp]=dlrm_mlp [bert_ffn]=bert_ffn [dlrm_bottom_mlp]=$h/workloads/dlrm_bottom_mlp.json [qwen2_mlp]=$h/workloads/qwen2_mlp.json)
declare -A dist=([dlrm_mlp]=dlrm_mlp_online [bert_ffn]=bert_ffn_chat [dlrm_bottom_mlp]=$h/distributions/dlrm_bottom_mlp_serving.json [qwen2_mlp]=$h/distributions/qwen2_mlp_decode.json)
for w in qwen2_mlp bert_ffn dlrm_mlp dlrm_bottom_mlp; do
  cat b_seed10/$w.jsonl b_seed11/$w.jsonl b_seed12/$w.jsonl > pooled/$w.jsonl
  [ -s pooled/${w}_train.json ] || $crmap train --db pooled/$w.jsonl --workload ${wl[$w]} --out pooled/$w.policy --json > pooled/${w}_train.json
  for s in 10 11 12; do
    [ -s pooled/${w}_evaluate_vs_seed$s.json ] && continue
    echo "== $w vs seed $s $(date +%T)" >&2
    $crmap evaluate --policy pooled/$w.policy --db pooled/$w.jsonl --workload ${wl[$w]} --shapes ${dist[$w]} \
      --held-out 8 --seed 505 --rounds 30 --objective median --compare-policy b_seed$s/$w.policy --json \
      --out pooled/${w}_evaluate_vs_seed$s.json > /dev/null
  done
done
