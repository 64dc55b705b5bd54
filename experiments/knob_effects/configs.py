"""Prints the configs of the knob-effects experiment, one per line: default, every single plan-knob change,
all fusion knobs at their deepest value, and that plus pre-packed weights (and the best-known layouts)."""
import json
import sys

space = json.load(open(sys.argv[1]))
plan = [k for k in space["knobs"] if k["scope"] == "plan"]
print("default")
for knob in plan:
    for value in knob["values"]:
        if value != knob["default"]:
            print(f"{knob['name']}={value}")
fuse = [f"{k['name']}={k['values'][-1]}" for k in plan if k["kind"] == "fusion"]
names = {k["name"] for k in plan}
if fuse:
    print(";".join(fuse))
if fuse and "weights" in names:
    print(";".join(fuse + ["weights=packed"]))
    if "layout" in names:
        for layout in ("blocked", "any"):
            print(";".join(fuse + ["weights=packed", f"layout={layout}"]))
