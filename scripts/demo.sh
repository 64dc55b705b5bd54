#!/usr/bin/env bash
# Builds crmap and runs the main job: the built-in default tuning campaign (four workloads, four agents, about a
# minute on 2 cores), stored in a fresh tuning database, then summarised with `crmap db best`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh crmap crmap_hook crmap_hook_example  # the tools, not the test suite
mkdir -p out
db=out/demo-campaign.jsonl
rm -f "$db"
build/crmap campaign --db "$db"
echo
build/crmap db best --db "$db"
