#!/usr/bin/env python3
"""Reads campaign databases: how noisy is one record, within its run and between runs? Measures nothing.

usage: record_noise_sources.py DB [DB ...]
A record's ratio is the median over its interleaved rounds of the config's latency over the anchor's. Estimates of
how much the log of that median varies (the standard deviation `crmap train` calls the record noise,
tuner/config_scores.h):
  - within its run, from the record itself: the spread of its rounds, read off its p10-p90 band of per-round ratios,
    as the standard deviation of the median of its n rounds. The factor from band to that standard deviation is
    the one normal rounds give under the same rules (p10/p90 interpolated between order statistics and the median
    as backend/statistics.cpp takes them), found by simulation for each n — at 10 rounds the band is narrower than
    its large-sample width and the median noisier than its large-sample error, so the textbook factor
    (1.2533 / 2.563 / sqrt(n)) reads 11% low;
  - in total, where the database holds the same config at the same shape more than once (a campaign's rechecks of
    its leaders, tuner/leader_recheck.h: measured again later in the same `crmap tune`, after other candidates):
    the median absolute difference of two records' log ratios over 0.6745 x sqrt(2) — a record's whole noise, its
    rounds' and whatever differs from one measurement to the next;
  - between measurements only: sqrt(total^2 - within^2), the within figure taken over the repeated records alone
    (0 when the total is the smaller) — the part more rounds in one record do not shrink.
Rechecked configs are the leaders, chosen partly on lucky first records, so the total carries some regression to
the mean; with few repeated pairs it is itself noisy (about +-40% at 5 pairs).
Prints per database (named by its path below the folder all given paths share): the records used (ok, not the
anchor itself), the median within-run figure, the repeated pairs, the total and the between-measurements part, and
`crmap train`'s estimate (record_noise of `<w>_train.json` beside the database, from how configs' speedups change
between neighbouring shapes); "-" where the files give none (train reports 0 when it has too few changes to say).
A database or report that cannot be read ends the run with one message naming the file (and line).
"""
import collections
import json
import math
import os
import random
import statistics
import sys

MAX_BYTES = 256 << 20  # a campaign database of this project is a few MiB
MAX_REPORT_BYTES = 16 << 20
MEDIAN_ABS_NORMAL = 0.6745
SIMULATED_RUNS = 20000
_band_factors = {}  # rounds -> the band-to-noise factor


def interpolated(sorted_values, q):
    """common/numeric.h's Percentile: linear between the order statistics at q x (n - 1)."""
    position = q * (len(sorted_values) - 1)
    lower = math.floor(position)
    upper = min(lower + 1, len(sorted_values) - 1)
    return sorted_values[lower] + (sorted_values[upper] - sorted_values[lower]) * (position - lower)


def band_factor(rounds):
    """The standard deviation of the median of `rounds` normal samples over their mean p10-p90 width, both under the
    interpolation rule above (a fixed seed: the same factor every run)."""
    if rounds not in _band_factors:
        rng = random.Random(rounds)
        medians, widths = [], []
        for _ in range(SIMULATED_RUNS):
            sample = sorted(rng.gauss(0, 1) for _ in range(rounds))
            medians.append(interpolated(sample, 0.5))
            widths.append(interpolated(sample, 0.9) - interpolated(sample, 0.1))
        _band_factors[rounds] = statistics.pstdev(medians) / statistics.fmean(widths)
    return _band_factors[rounds]


def within_run_noise(record):
    """The record's own estimate of its log ratio's standard deviation, or None when it lacks the rounds or band."""
    ratio, rounds = record.get("ratio_to_anchor") or {}, (record.get("latency_us") or {}).get("rounds", 0)
    low, high = ratio.get("p10"), ratio.get("p90")
    if not isinstance(rounds, int) or rounds < 2 or not low or not high or low <= 0 or high < low:
        return None
    return band_factor(rounds) * (math.log(high) - math.log(low))


def read_records(path):
    """The database's usable records (ok, anchored, not the anchor itself); exits naming the file and line of one
    it cannot read."""
    if os.path.getsize(path) > MAX_BYTES:
        sys.exit(f"{path} is larger than {MAX_BYTES} bytes")
    records = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                record = json.loads(line)
                ratio = record.get("ratio_to_anchor")
                if record.get("status") != "ok" or not ratio or ratio.get("anchor") == record.get("config"):
                    continue  # failed, unanchored, or the anchor itself (always 1)
                key = (tuple(sorted(record["dims"].items())), record["config"])
                records.append((key, math.log(ratio["median"]), within_run_noise(record)))
            except (json.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError) as error:
                sys.exit(f"{path}:{number}: not a measurement record with dims, config and a positive ratio "
                         f"median ({error!r})")
    return records


def noise_sources(path):
    """(records used, median within-run figure, repeated pairs, total noise, between-measurements part); None
    where the database gives none."""
    records = read_records(path)
    by_key = collections.defaultdict(list)
    for key, log_ratio, within in records:
        by_key[key].append((log_ratio, within))
    differences = [abs(a[0] - b[0]) for values in by_key.values() for i, a in enumerate(values) for b in values[i + 1:]]
    within_all = [w for _, _, w in records if w is not None]
    within_repeated = [w for values in by_key.values() if len(values) > 1 for _, w in values if w is not None]
    total = statistics.median(differences) / (MEDIAN_ABS_NORMAL * math.sqrt(2)) if differences else None
    between = None
    if total is not None and within_repeated:
        between = math.sqrt(max(0.0, total ** 2 - statistics.median(within_repeated) ** 2))
    return (len(records), statistics.median(within_all) if within_all else None, len(differences), total, between)


def train_estimate(path):
    """`crmap train`'s record_noise beside the database; None when absent or 0 (too few changes to say)."""
    report = path[: -len(".jsonl")] + "_train.json"
    if not os.path.exists(report):
        return None
    if os.path.getsize(report) > MAX_REPORT_BYTES:
        sys.exit(f"{report} is larger than {MAX_REPORT_BYTES} bytes")
    try:
        with open(report) as f:
            noise = json.load(f).get("record_noise")
    except (json.JSONDecodeError, AttributeError) as error:
        sys.exit(f"{report}: not a train report ({error!r})")
    return noise if isinstance(noise, (int, float)) and noise > 0 else None


def cell(value):
    return "-" if value is None else f"{value:.3f}"


def main():
    paths = sys.argv[1:]
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        if not path.endswith(".jsonl") or not os.path.isfile(path):
            sys.exit(f"{path} is not a campaign database (<workload>.jsonl)\n" + __doc__)
    print("| database | records used | within its run | repeated pairs | total (repeats) | between measurements "
          "| crmap train's estimate |")
    print("|---|---|---|---|---|---|---|")
    common = os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in paths])
    for path in paths:
        records, within, pairs, total, between = noise_sources(path)
        name = os.path.relpath(os.path.abspath(path), common)  # the part that tells the databases apart
        print(f"| {name} | {records} | {cell(within)} | {pairs} | {cell(total)} | {cell(between)} | "
              f"{cell(train_estimate(path))} |")


if __name__ == "__main__":
    main()
