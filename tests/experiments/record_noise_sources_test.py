"""Tests of experiments/policy_accuracy/record_noise_sources.py (reads campaign databases)."""
import math
import random
import statistics
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import record_noise_sources  # noqa: E402
from record_noise_sources import interpolated  # noqa: E402


def record(batch, config, median, p10=None, p90=None, rounds=10, anchor="D", status="ok"):
    ratio = {"anchor": anchor, "median": median}
    if p10:
        ratio.update(p10=p10, p90=p90)
    return {"status": status, "dims": {"batch": batch}, "config": config, "ratio_to_anchor": ratio,
            "latency_us": {"rounds": rounds}}


def simulated_record(rng, sigma, rounds):
    """A record of `rounds` log-normal per-round ratios around 1, with p10, p90 and median as the backend takes
    them; returns it and its log median."""
    logs = sorted(rng.gauss(0, sigma) for _ in range(rounds))
    median = interpolated(logs, 0.5)
    return record(4, "A", math.exp(median), math.exp(interpolated(logs, 0.1)), math.exp(interpolated(logs, 0.9)),
                  rounds), median


class WithinRunNoiseTest(unittest.TestCase):
    def test_it_is_the_standard_deviation_of_the_median_normal_rounds_give(self):
        for seed in (11, 12, 13):  # not the factor's own draws
            rng = random.Random(seed)
            for rounds in (10, 30):
                pairs = [simulated_record(rng, 0.1, rounds) for _ in range(2000)]
                estimate = statistics.fmean(record_noise_sources.within_run_noise(r) for r, _ in pairs)
                actual = statistics.pstdev(m for _, m in pairs)
                # the large-sample factor (1.2533 / 2.563 / sqrt(n)) reads 11% low at 10 rounds
                self.assertAlmostEqual(estimate / actual, 1, delta=0.05, msg=f"seed {seed}, {rounds} rounds")

    def test_more_rounds_with_the_same_band_shrink_it(self):
        ten = record_noise_sources.within_run_noise(record(4, "A", 1.0, 0.9, 1.1, rounds=10))
        forty = record_noise_sources.within_run_noise(record(4, "A", 1.0, 0.9, 1.1, rounds=40))
        self.assertAlmostEqual(forty / ten, 0.5, delta=0.05)

    def test_a_record_without_rounds_or_band_has_none(self):
        self.assertIsNone(record_noise_sources.within_run_noise(record(4, "A", 1.0)))
        self.assertIsNone(record_noise_sources.within_run_noise(record(4, "A", 1.0, 0.9, 1.1, rounds=1)))
        self.assertIsNone(record_noise_sources.within_run_noise(record(4, "A", 1.0, 1.1, 0.9)))


class NoiseSourcesTest(ScriptTest):
    def test_the_total_from_repeats_and_the_part_rounds_do_not_shrink(self):
        band = (0.45, 0.55)
        path = self.write("f/w.jsonl", [
            record(4, "A", 0.5, *band), record(4, "A", 0.5 * math.exp(0.1), *band),
            record(8, "A", 0.7, 0.6, 0.8), record(8, "B", 0.7, 0.6, 0.8),  # wider bands, not repeats
            record(4, "D", 1.0, 1.0, 1.0, anchor="D"),  # the anchor itself
            record(4, "B", 0.9, 0.8, 1.0, status="failed")])
        records, within, pairs, total, between = record_noise_sources.noise_sources(path)
        self.assertEqual((records, pairs), (4, 1))
        self.assertAlmostEqual(total, 0.1 / (0.6745 * math.sqrt(2)), places=6)
        repeated_within = record_noise_sources.within_run_noise(record(4, "A", 0.5, *band))
        self.assertAlmostEqual(between, math.sqrt(total ** 2 - repeated_within ** 2), places=6)
        self.assertGreater(within, repeated_within)  # over all four records, batch 8's wider bands among them

    def test_a_total_below_the_rounds_own_noise_leaves_nothing_between(self):
        path = self.write("f/w.jsonl", [record(4, "A", 0.5, 0.3, 0.8), record(4, "A", 0.5001, 0.3, 0.8)])
        self.assertEqual(record_noise_sources.noise_sources(path)[4], 0)

    def test_no_repeats_give_no_total(self):
        _, _, pairs, total, between = record_noise_sources.noise_sources(self.write("f/w.jsonl", [record(4, "A", 0.5)]))
        self.assertEqual((pairs, total, between), (0, None, None))

    def test_a_line_it_cannot_read_is_named(self):
        for content in ('{"status": "ok"}\n{"status": "o', '{"status": "ok", "config": "A", "ratio_to_anchor": '
                        '{"median": 0.5}}\n', "[1, 2]\n", '{"status": "ok", "dims": {}, "config": "A", '
                        '"ratio_to_anchor": {"median": 0}}\n'):
            path = self.write("f/w.jsonl", content)
            with self.assertRaises(SystemExit) as exit_:
                record_noise_sources.noise_sources(path)
            self.assertIn("w.jsonl:", str(exit_.exception.code))
            self.assertIn(": not a measurement record", str(exit_.exception.code))

    def test_trains_estimate_none_when_it_had_too_few_changes_and_a_bad_report_named(self):
        path = self.write("f/w.jsonl", [record(4, "A", 0.5)])
        self.write("f/w_train.json", {"record_noise": 0})
        self.assertIsNone(record_noise_sources.train_estimate(path))
        self.write("f/w_train.json", '{"record_noise": 0.0')
        with self.assertRaises(SystemExit) as exit_:
            record_noise_sources.train_estimate(path)
        self.assertIn("w_train.json: not a train report", str(exit_.exception.code))


class MainTest(ScriptTest):
    def test_prints_every_estimate_and_trains_beside_the_database(self):
        path = self.write("f/w.jsonl", [record(4, "A", 0.5, 0.45, 0.55), record(4, "A", 0.5 * math.exp(0.1))])
        self.write("f/w_train.json", {"record_noise": 0.042})
        other = self.write("g/w.jsonl", [record(4, "A", 0.5)])
        code, out = self.run_main(record_noise_sources, ["record_noise_sources.py", path, other])
        self.assertIsNone(code)
        within = record_noise_sources.within_run_noise(record(4, "A", 0.5, 0.45, 0.55))
        total = 0.1 / (0.6745 * math.sqrt(2))
        self.assertIn(f"| f/w.jsonl | 2 | {within:.3f} | 1 | {total:.3f} | "
                      f"{math.sqrt(total ** 2 - within ** 2):.3f} | 0.042 |", out)
        self.assertIn("| g/w.jsonl | 1 | - | 0 | - | - | - |", out)  # named below the folder both share

    def test_anything_but_a_database_is_refused(self):
        code, _ = self.run_main(record_noise_sources, ["record_noise_sources.py", self.write("f/w.json", "{}")])
        self.assertIn("is not a campaign database", code)


if __name__ == "__main__":
    unittest.main()
