#!/usr/bin/env python3
"""Would a campaign that measured its labels' thread counts at the support's untuned extremes pick better threads?

usage: threads_probe.py [--rounds N] [--count K] [--out DIR] CRMAP WORKLOAD DISTRIBUTION FOLDER [FOLDER ...]
A prototype of a campaign step, measured before it is built. Most of the bf16 host's misses run another thread
count than the oracle (RESULTS.md, "One thread or two"), and at dlrm_mlp's large batches, beyond the tuned range,
the oracle is a tuned shape's label run on two threads, which nothing measured there. For each FOLDER (a
budgeted.sh result folder, or an ab_campaigns.sh A side: `<w>.jsonl`, its evaluation or its B sibling's, and
version.txt) this
1. trains a policy from `<w>.jsonl` with CRMAP (`<w>.probe_base.policy` in the folder, kept and reused);
2. asks `crmap suggest --count K` (default 2) for the distribution's shapes to measure next (the support's untuned
   extremes first);
3. at each, measures the default config (the anchor, as a campaign does) and every distinct label of the policy's
   table at each thread count of the space, side by side (`crmap compare`, N interleaved rounds, default 10: a
   campaign measurement's), under the folder's ISA;
4. writes `<w>.probed.jsonl`: the campaign's records, then these (agent `anchor` for the default, `probe` for the
   rest; campaign `threads-probe`) — kept and reused, so a rerun measures nothing again; written only when every
   compare ran (a failed one is named and the folder left without it: its B side then reports "train failed");
5. runs decision_pair_check.py's loop with the policy trained from `<w>.jsonl` (A) and from `<w>.probed.jsonl` (B),
   the same build: where their decisions at the evaluation's held-out shapes differ, both picks are measured beside
   the oracle config (30 interleaved rounds), policies in OUT (a temporary folder unless given).
Prints per folder the shapes probed, the measurements added and each shape's fastest probe, then the pair table.
The probes cost measurements the campaign did not spend (reported per folder); a campaign step would take them
from the budget. Run it on copies of stored folders: it writes into them.
"""
import json
import os
import shutil
import sys
import tempfile

from calibration_check import workload_arg
from decision_pair_check import ROOT, check
from tuned_answers_check import folder_environment, parse_options, run


def with_knob(config, knob, value):
    """The config string with `knob` set to `value` (knob=value pairs joined by ';')."""
    pairs = [item.split("=", 1) for item in config.split(";")]
    return ";".join(f"{name}={value if name == knob else current}" for name, current in pairs)


def probe_configs(labels, thread_values, default):
    """Every distinct label at every thread count, in the labels' order, without the default (the anchor)."""
    configs = []
    for label in labels:
        for threads in thread_values:
            config = with_knob(label, "threads", threads)
            if config != default and config not in configs:
                configs.append(config)
    return configs


def probe_records(results):
    """compare's results as campaign records: the first (the default) as the anchor, the rest as probes."""
    records = []
    for i, result in enumerate(results):
        records.append(dict(result, agent="anchor" if i == 0 else "probe", campaign="threads-probe"))
    return records


def crmap_json(crmap, args, env=None):
    out = run([crmap] + args + ["--json"], env)
    return None if out is None else json.loads(out)


def probe_folder(crmap, workload, distribution, folder, count, rounds):
    """Writes `<w>.probed.jsonl` in the folder unless it exists — only when every probe's compare ran, so a failure
    is measured again on a rerun; returns a line saying what was measured or what failed (crmap's message went to
    stderr), or None when the folder has no database of the workload."""
    database = os.path.join(folder, f"{workload}.jsonl")
    probed = os.path.join(folder, f"{workload}.probed.jsonl")
    if not os.path.exists(database):
        return None
    if os.path.exists(probed):
        return f"{folder}: {probed} exists, reused"
    policy = os.path.join(folder, f"{workload}.probe_base.policy")
    spec = workload_arg(ROOT, workload)
    if not os.path.exists(policy) and run([crmap, "train", "--db", database, "--workload", spec, "--out", policy,
                                           "--json"]) is None:
        return f"{folder}: train failed"
    exported = json.loads(run([crmap, "export", "--policy", policy, "--format", "json"]) or "null")
    space = crmap_json(crmap, ["space", "--workload", spec])
    suggestion = crmap_json(crmap, ["suggest", "--policy", policy, "--shapes", distribution, "--count", str(count),
                                    "--workload", spec])
    if exported is None or space is None or suggestion is None:
        return f"{folder}: export, space or suggest failed"
    thread_knobs = [knob["values"] for knob in space["knobs"] if knob["name"] == "threads"]
    if not thread_knobs:
        return f"{folder}: {workload}'s space has no threads knob; nothing to probe"
    labels = list(dict.fromkeys(row["config"] for row in exported["table"]))
    configs = probe_configs(labels, thread_knobs[0], space["default"])
    env = folder_environment(folder)
    records, fastest = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for pick in suggestion["suggested"]:
            dims = ",".join(f"{k}={v}" for k, v in pick["dims"].items())
            out_path = os.path.join(scratch, "compare.json")
            args = [crmap, "compare", "--workload", spec, "--dims", dims, "--config", space["default"]]
            for config in configs:
                args += ["--config", config]
            if run(args + ["--rounds", str(rounds), "--out", out_path], env) is None:
                return f"{folder}: compare at {dims} failed; nothing written, a rerun probes the folder again"
            with open(out_path) as f:
                results = json.load(f)["results"]
            records += probe_records(results)
            ok = [r for r in results[1:] if r.get("status") == "ok" and r.get("ratio_to_anchor")]
            best = min(ok, key=lambda r: r["ratio_to_anchor"]["median"], default=None)
            threads = best and dict(item.split("=", 1) for item in best["config"].split(";")).get("threads")
            fastest.append(f"{dims}: fastest probe threads={threads}" if best else f"{dims}: no probe ran")
        staged = os.path.join(scratch, "probed.jsonl")
        shutil.copyfile(database, staged)
        with open(staged, "a") as f:
            f.writelines(json.dumps(record, separators=(",", ":")) + "\n" for record in records)
        shutil.move(staged, probed)
    return (f"{folder}: {len(records)} measurements added ({len(configs)} probes + the anchor at "
            f"{len(suggestion['suggested'])} shapes); " + "; ".join(fastest))


def main(argv):
    options, args = parse_options(argv, ("rounds", "count", "out"), __doc__)
    if len(args) < 4:
        sys.exit(__doc__)
    count = options.get("count", "2")
    if not count.isdigit() or int(count) < 1:
        sys.exit("--count needs a whole number >= 1\n" + __doc__)
    crmap, workload, distribution, folders = args[0], args[1], args[2], args[3:]
    for folder in folders:
        line = probe_folder(crmap, workload, distribution, folder, int(count), options.get("rounds", 10))
        if line:
            print(line, flush=True)
    print()
    check([("A", crmap, []), ("B", crmap, [], ".probed")], crmap, folders, 30, options.get("out"), [workload])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
