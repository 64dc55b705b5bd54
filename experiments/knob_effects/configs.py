"""Prints the configs of the knob-effects experiment, one per line: default, every single plan-knob change,
each activation layout with packed weights, all fusion knobs at their deepest value, and that plus pre-packed
weights (and the layouts)."""
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
# Channels-last and blocked activations need packed weights for a jit kernel (stored oihw weights only have
# oneDNN's reference kernel with them): measure each layout with packed weights as well.
if "layout" in names and "weights" in names:
    for layout in ("nhwc", "blocked", "any"):
        print(f"layout={layout};weights=packed")
if fuse:
    print(";".join(fuse))
if fuse and "weights" in names:
    print(";".join(fuse + ["weights=packed"]))
    if "layout" in names:
        for layout in ("blocked", "any"):
            print(";".join(fuse + ["weights=packed", f"layout={layout}"]))
