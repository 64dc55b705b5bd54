#!/usr/bin/env python3
"""Reads campaign databases: how noisy is one record, within its run and between runs? Measures nothing.

usage: record_noise_sources.py DB [DB ...]
A record's speedup is the median over its interleaved rounds of the config's latency over the anchor's. Two
estimates of how much that median varies (the standard deviation of its log, what `crmap train` calls the record
noise, tuner/config_scores.h):
  - within its run, from the record itself: its rounds' p10-p90 band of the ratio read as a normal spread
    (sigma = ln(p90 / p10) / 2.563) and the median of n rounds' standard error, 1.2533 x sigma / sqrt(n) — what more
    rounds per record shrink;
  - between runs, where the database holds the same config at the same shape more than once (a campaign's
    rechecks of its leaders, tuner/leader_recheck.h): the median absolute difference of two records' log ratios
    over 0.6745 x sqrt(2) — everything that differs between two runs, which rounds do not shrink.
Prints per database (named by its path below the folder all given paths share) the records read, the median within-run estimate, the repeated pairs and the between-run
estimate, and `crmap train`'s estimate (record_noise of `<w>_train.json` beside the database, from how configs'
speedups change between neighbouring shapes), each "-" where the database gives none.
"""
import collections
import json
import math
import os
import statistics
import sys

MAX_BYTES = 256 << 20  # a campaign database of this project is a few MiB
NORMAL_P10_P90 = 2 * 1.2816  # the p10-p90 width of N(0, 1)
MEDIAN_SE = 1.2533  # the standard error of a normal sample's median, in sigmas x sqrt(n)
MEDIAN_ABS_NORMAL = 0.6745


def within_run_noise(record):
    """The record's own estimate of its log ratio's standard error, or None when it lacks the rounds or band."""
    ratio, rounds = record.get("ratio_to_anchor") or {}, (record.get("latency_us") or {}).get("rounds", 0)
    low, high = ratio.get("p10"), ratio.get("p90")
    if rounds < 2 or not low or not high or low <= 0 or high < low:
        return None
    return MEDIAN_SE * (math.log(high) - math.log(low)) / NORMAL_P10_P90 / math.sqrt(rounds)


def noise_sources(path):
    """(records read, median within-run estimate or None, repeated pairs, between-run estimate or None)."""
    if os.path.getsize(path) > MAX_BYTES:
        sys.exit(f"{path} is larger than {MAX_BYTES} bytes")
    within, log_ratios = [], collections.defaultdict(list)
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{path}:{number}: not a JSON record ({error})")
            ratio = record.get("ratio_to_anchor")
            if record.get("status") != "ok" or not ratio or ratio.get("anchor") == record.get("config"):
                continue  # failed, unanchored, or the anchor itself (always 1)
            noise = within_run_noise(record)
            if noise is not None:
                within.append(noise)
            key = (tuple(sorted(record["dims"].items())), record["config"])
            log_ratios[key].append(math.log(ratio["median"]))
    differences = [abs(a - b) for values in log_ratios.values()
                   for i, a in enumerate(values) for b in values[i + 1:]]
    return (sum(len(v) for v in log_ratios.values()), statistics.median(within) if within else None,
            len(differences),
            statistics.median(differences) / (MEDIAN_ABS_NORMAL * math.sqrt(2)) if differences else None)


def train_estimate(path):
    report = path[: -len(".jsonl")] + "_train.json"
    if not os.path.exists(report):
        return None
    with open(report) as f:
        return json.load(f).get("record_noise")


def cell(value):
    return "-" if value is None else f"{value:.3f}"


def main():
    paths = sys.argv[1:]
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        if not path.endswith(".jsonl") or not os.path.isfile(path):
            sys.exit(f"{path} is not a campaign database (<workload>.jsonl)\n" + __doc__)
    print("| database | records | within its run | repeated pairs | between runs | crmap train's estimate |")
    print("|---|---|---|---|---|---|")
    common = os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in paths])
    for path in paths:
        records, within, pairs, between = noise_sources(path)
        name = os.path.relpath(os.path.abspath(path), common)  # the part that tells the databases apart
        print(f"| {name} | {records} | {cell(within)} | {pairs} | {cell(between)} | {cell(train_estimate(path))} |")


if __name__ == "__main__":
    main()
