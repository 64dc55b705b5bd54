"""The table the serve experiments print (modes.sh, scenarios.sh): per set-up, the medians over interleaved rounds
of `crmap serve --json` summaries, and the ratios the issue's targets name (policy+b against libtorch, triton and
oracle+b; policy+b+w, the support warmed first, against policy+b, libtorch and oracle+b), for those of them the
run measured. Usage: python3 modes_table.py TITLE SLO_MS ROUNDS NAMES PATTERN, PATTERN a path with {name} and {round}."""
import json
import statistics
import sys


def medians(pattern, names, rounds):
    rows = {}
    for name in names:
        runs = [json.load(open(pattern.format(name=name, round=r))) for r in range(rounds)]
        def med(f):
            return statistics.median(f(s) for s in runs)
        rows[name] = {
            "n": med(lambda s: s["released"]), "p50": med(lambda s: s["latency_us"]["p50"]),
            "p95": med(lambda s: s["latency_us"]["p95"]), "p99": med(lambda s: s["latency_us"]["p99"]),
            "good": med(lambda s: s["goodput_rps"]), "thr": med(lambda s: s["throughput_rps"]),
            "batch": med(lambda s: s["mean_batch_size"]), "rej": med(lambda s: sum(s["rejected"].values())),
            "cpu": med(lambda s: s["cpu"]["process_s"])}
    return rows


def print_table(title, slo_ms, rounds, names, rows):
    print(f"\n{title}: median over {rounds} interleaved rounds; latency in ms, goodput within {slo_ms} ms in req/s")
    print(f"{'mode':<10} {'released':>8} {'p50':>8} {'p95':>8} {'p99':>8} {'goodput':>8} {'thrpt':>7} {'batch':>6} "
          f"{'rejected':>8} {'cpu s':>6} {'p99 vs policy':>13}")
    p = rows.get("policy+b")
    for name in names:
        r = rows[name]
        versus = f"{r['p99'] / p['p99']:12.2f}x" if p else f"{'-':>13}"
        print(f"{name:<10} {r['n']:8.0f} {r['p50']/1e3:8.2f} {r['p95']/1e3:8.2f} {r['p99']/1e3:8.2f} {r['good']:8.1f} "
              f"{r['thr']:7.1f} {r['batch']:6.2f} {r['rej']:8.0f} {r['cpu']:6.2f} {versus}")
    # The targets, for the set-ups this run measured.
    targets = []
    if p and "libtorch" in rows:
        targets.append(f"libtorch p99 / policy p99 = {rows['libtorch']['p99'] / p['p99']:.2f}x (>= 3x)")
    if p and "triton" in rows:
        targets.append(f"policy goodput / triton = {p['good'] / max(rows['triton']['good'], 1e-9):.2f}x (>= 2x)")
    if p and "oracle+b" in rows:
        targets.append(f"policy p99 / oracle p99 = {p['p99'] / rows['oracle+b']['p99']:.2f} (<= 1.10)")
    if targets:
        print("targets (policy+b): " + "; ".join(targets))
    w = rows.get("policy+b+w")  # policy+b with the scenario's support warmed first
    if w:
        warmed = [f"policy+b p99 / policy+b+w p99 = {p['p99'] / w['p99']:.2f}x"] if p else []
        if "libtorch" in rows:
            warmed.append(f"libtorch p99 / policy+b+w p99 = {rows['libtorch']['p99'] / w['p99']:.2f}x (>= 3x)")
        if "oracle+b" in rows:
            warmed.append(f"policy+b+w p99 / oracle+b p99 = {w['p99'] / rows['oracle+b']['p99']:.2f}")
        if warmed:
            print("warmed (policy+b+w): " + "; ".join(warmed))

if __name__ == "__main__":
    title, slo_ms, rounds, names, pattern = sys.argv[1:6]
    names = names.split()
    print_table(title, slo_ms, int(rounds), names, medians(pattern, names, int(rounds)))
