#!/usr/bin/env python3
"""Plot of experiments/policy_accuracy: each held-out shape's oracle ratio per method, for every workload whose
`<w>_evaluate.json` is in the result folders given (one row of panels per folder, e.g. one per ISA).

usage: plot_per_shape.py OUT.png DIR [DIR ...]
A shape's oracle ratio is the oracle's latency over the method's, measured in the same interleaved run (1 = the
method picked the fastest config; the dashed line is the 5% band CTMA counts). Shapes are ordered by their dims.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = {"crmap policy (hook)": "o", "compared policy (hook)": "x", "static plan": "s",
           "nearest tuned shape": "^", "default config": "v"}


def dims_key(dims):
    return tuple(sorted(dims.items()))


def dims_label(dims):
    return ",".join(f"{value}" for _, value in sorted(dims.items()))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, folders = sys.argv[1], sys.argv[2:]
    panels = []
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if name.endswith("_evaluate.json"):
                with open(os.path.join(folder, name)) as f:
                    panels.append((os.path.basename(os.path.normpath(folder)), json.load(f)))
    if not panels:
        sys.exit("no *_evaluate.json in " + " ".join(folders))
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.6 * len(panels)), squeeze=False)
    for ax, (folder, data) in zip(axes[:, 0], panels):
        shapes = sorted(data["shapes"], key=lambda s: dims_key(s["dims"]))
        x = list(range(len(shapes)))
        for method in [m["method"] for m in data["methods"]]:
            ratios = [s[method]["oracle_ratio"] for s in shapes]
            ax.plot(x, ratios, marker=MARKERS.get(method, "."), linestyle="-" if "policy" in method else ":",
                    label=method)
        ax.axhline(0.95, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels([dims_label(s["dims"]) for s in shapes], fontsize=7)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("oracle ratio")
        ax.set_title(f"{data['workload']} ({folder}): held-out shapes by {', '.join(sorted(shapes[0]['dims']))}",
                     fontsize=9)
    axes[0, 0].legend(fontsize=7, loc="lower left", ncol=3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out} ({len(panels)} panels)")


if __name__ == "__main__":
    main()
