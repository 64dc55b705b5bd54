#!/usr/bin/env bash
# Policy accuracy (compile-time mapping accuracy): train a policy on an exhaustive database of 8 tuned shapes,
# then `crmap evaluate` it on 8 held-out shapes of the same distribution, each against its own exhaustive oracle,
# next to a static plan, the nearest tuned shape's config and the default. bert_ffn reuses the agent-efficiency
# database; resnet_bottleneck records its own (8 shapes of resnet_bottleneck_mixed x 1152 plan configs).
# Writes results/<workload>.policy, <workload>_evaluate.json and table.md. About 30 minutes on 2 cores.
#
# usage: experiments/policy_accuracy/run.sh [--workloads "bert_ffn resnet_bottleneck"] [--out DIR]
set -euo pipefail
source "$(dirname "$0")/../common.sh"
crmap_experiment_args "$root/experiments/policy_accuracy/results" "$@"
[ "$workloads_given" = 1 ] || workloads="bert_ffn resnet_bottleneck"
declare -A distribution=([bert_ffn]=bert_ffn_chat [resnet_bottleneck]=resnet_bottleneck_mixed)
declare -A database=([bert_ffn]="$root/experiments/agent_efficiency/results/bert_ffn_grid.jsonl"
                     [resnet_bottleneck]="$out/resnet_bottleneck_grid.jsonl")
for workload in $workloads; do
  db="${database[$workload]}"
  # The recording is committed gzipped (11 MB as text).
  [ ! -s "$db" ] && [ -s "$db.gz" ] && gunzip -k "$db.gz"
  if [ ! -s "$db" ]; then
    plan=$("$crmap" space --workload "$workload" --json | "$python" -c 'import json,sys; print(json.load(sys.stdin)["size"]["plan"])')
    echo "== $workload: recording 8 shapes x $plan plan configs" >&2
    "$crmap" tune --workload "$workload" --shapes "${distribution[$workload]}" --num-shapes 8 --agent grid \
      --budget $((plan * 8)) --campaign grid --db "$db" --rounds 10 --warmup 2 --no-confirm --json >/dev/null
  fi
  echo "== $workload: training" >&2
  "$crmap" train --db "$db" --workload "$workload" --out "$out/$workload.policy" >&2
  echo "== $workload: evaluating on 8 held-out shapes" >&2
  "$crmap" evaluate --policy "$out/$workload.policy" --db "$db" --shapes "${distribution[$workload]}" --held-out 8 \
    --rounds 20 --json --out "$out/${workload}_evaluate.json" >/dev/null
done
"$python" - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
rows = ["| workload | method | within 5% of oracle (CTMA) | geo-mean oracle ratio | worst shape |", "|---|---|---|---|---|"]
for path in sorted(glob.glob(os.path.join(out, "*_evaluate.json"))):
    data = json.load(open(path))
    for m in data["methods"]:
        rows.append(f"| {data['workload']} | {m['method']} | {100 * m['ctma']:.0f}% | {m['geo_mean_oracle_ratio']:.3f} | "
                    f"{m['worst']:.3f} |")
open(os.path.join(out, "table.md"), "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
