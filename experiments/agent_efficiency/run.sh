#!/usr/bin/env bash
# Agent efficiency: record the exhaustive plan space once with `grid` (8 shapes per workload, real
# measurements), then replay every agent against it: best-found / oracle versus measurements, 5 seeds each;
# the rl agent's transfer to held-out shapes; and a real-hardware confirmation of the two best agents.
# Writes results/<workload>_grid.jsonl, _replay.json, _transfer.json, confirm_*.json, then table.md,
# transfer.md, confirmation.md and agent_efficiency.png.
#
# usage: experiments/agent_efficiency/run.sh [--workloads "dlrm_mlp bert_ffn"] [--out DIR]
# The grid recording resumes where it stopped if interrupted (about 15 minutes in all on 2 cores).
set -euo pipefail
source "$(dirname "$0")/../common.sh"
crmap_experiment_args "$root/experiments/agent_efficiency/results" "$@"
[ "$workloads_given" = 1 ] || workloads="dlrm_mlp bert_ffn resnet_stem"
declare -A distribution=([dlrm_mlp]=dlrm_mlp_online [bert_ffn]=bert_ffn_chat [resnet_stem]=resnet_stem_thumbnails
                         [resnet_bottleneck]=resnet_bottleneck_thumbnails [bert_attention]=bert_attention_short_queries)
shapes=8
seeds=5
agents="random,grid,evolution,bandit,model,rl"

for workload in $workloads; do
  db="$out/${workload}_grid.jsonl"
  plan=$("$crmap" space --workload "$workload" --json | "$python" -c 'import json,sys; print(json.load(sys.stdin)["size"]["plan"])')
  exhaustive=$((plan * shapes))
  resume=()
  [ -s "$db" ] && resume=(--resume)
  echo "== $workload: recording the exhaustive space ($shapes shapes x $plan plan configs)" >&2
  "$crmap" tune --workload "$workload" --shapes "${distribution[$workload]}" --num-shapes $shapes --agent grid \
    --budget $exhaustive --campaign grid --db "$db" --rounds 10 --warmup 2 --no-confirm --json "${resume[@]}" \
    >"$out/${workload}_grid_summary.json"
  echo "== $workload: replaying $agents, $seeds seeds" >&2
  "$crmap" replay --db "$db" --workload "$workload" --agent "$agents" --seeds $seeds --budget $((exhaustive / 4)) \
    --json --out "$out/${workload}_replay.json" >/dev/null
  echo "== $workload: rl transfer to 2 held-out shapes" >&2
  "$crmap" replay --db "$db" --workload "$workload" --agent rl --seeds $seeds --budget $((exhaustive / 10)) \
    --transfer 2 --json --out "$out/${workload}_transfer.json" >/dev/null
done

# Real-hardware confirmation: the two agents best at 10% of the exhaustive budget in replay, run for real on
# the first workload's shapes, their best configs then measured side by side per shape.
first=${workloads%% *}
"$python" "$root/experiments/agent_efficiency/analyze.py" "$out" >/dev/null
read -r agent_a agent_b < <("$python" -c "import json; print(*json.load(open('$out/summary.json'))['top_two']['$first'])")
plan=$("$crmap" space --workload "$first" --json | "$python" -c 'import json,sys; print(json.load(sys.stdin)["size"]["plan"])')
budget=$((plan * shapes / 10))
for agent in $agent_a $agent_b; do
  confirm_db="$out/confirm_${first}_${agent}.jsonl"
  rm -f "$confirm_db"
  echo "== confirmation: $agent on real hardware, budget $budget" >&2
  "$crmap" tune --workload "$first" --shapes "${distribution[$first]}" --num-shapes $shapes --agent "$agent" \
    --budget $budget --db "$confirm_db" --rounds 10 --no-confirm --json >"$out/confirm_${first}_${agent}.json"
done
"$python" "$root/experiments/agent_efficiency/confirm.py" "$crmap" "$first" "$out" "$agent_a" "$agent_b"
"$python" "$root/experiments/agent_efficiency/analyze.py" "$out"
