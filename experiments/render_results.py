"""Refreshes the generated tables in experiments/RESULTS.md from the experiments' results/ folders.

Each generated table sits between `<!-- NAME:begin -->` and `<!-- NAME:end -->`; NAME maps to a results file
below. Everything else in RESULTS.md is written by hand. Run: /usr/bin/python3 experiments/render_results.py
"""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
tables = {
    "knob_effects": "knob_effects/results/compact.md",
    "peer_libtorch": "peer_libtorch/results/table.md",
    "agent_efficiency": "agent_efficiency/results/table.md",
    "rl_transfer": "agent_efficiency/results/transfer.md",
    "agent_confirmation": "agent_efficiency/results/confirmation.md",
    "hook_latency": "hook_latency/results/table.md",
    "policy_accuracy": "policy_accuracy/results/table.md",
}
path = os.path.join(here, "RESULTS.md")
text = open(path).read()
for name, source in tables.items():
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text:
        continue
    source_path = os.path.join(here, source)
    if not os.path.exists(source_path):
        print(f"{source} missing: table '{name}' left as it was", file=sys.stderr)
        continue
    body = open(source_path).read().strip()
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: f"{begin}\n{body}\n{end}", text, flags=re.S)
open(path, "w").write(text)
print("updated", path)
