"""Tests of experiments/policy_accuracy/record_noise_sources.py (reads campaign databases)."""
import math
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import record_noise_sources  # noqa: E402


def record(batch, config, median, p10=None, p90=None, rounds=10, anchor="D", status="ok"):
    ratio = {"anchor": anchor, "median": median}
    if p10:
        ratio.update(p10=p10, p90=p90)
    return {"status": status, "dims": {"batch": batch}, "config": config, "ratio_to_anchor": ratio,
            "latency_us": {"rounds": rounds}}


class WithinRunNoiseTest(unittest.TestCase):
    def test_the_standard_error_of_the_median_from_the_records_p10_p90_band(self):
        # a band of 2.563 in log ratio is one sigma of N(0, 1) each side of p10-p90; 4 rounds halve it
        noise = record_noise_sources.within_run_noise(record(4, "A", 1.0, 1.0, math.exp(2.5632), rounds=4))
        self.assertAlmostEqual(noise, 1.2533 / 2, places=3)
        nine = record_noise_sources.within_run_noise(record(4, "A", 1.0, 1.0, math.exp(2.5632), rounds=36))
        self.assertAlmostEqual(nine, noise / 3, places=6)  # more rounds shrink it as 1 / sqrt(n)

    def test_a_record_without_rounds_or_band_has_none(self):
        self.assertIsNone(record_noise_sources.within_run_noise(record(4, "A", 1.0)))
        self.assertIsNone(record_noise_sources.within_run_noise(record(4, "A", 1.0, 0.9, 1.1, rounds=1)))
        self.assertIsNone(record_noise_sources.within_run_noise(record(4, "A", 1.0, 1.1, 0.9)))


class NoiseSourcesTest(ScriptTest):
    def test_between_runs_from_the_same_config_measured_again_at_the_same_shape(self):
        path = self.write("f/w.jsonl", [
            record(4, "A", 0.5, 0.45, 0.55), record(4, "A", 0.5 * math.exp(0.1), 0.45, 0.55),
            record(8, "A", 0.7, 0.6, 0.8),  # another shape: not a repeat
            record(4, "D", 1.0, 1.0, 1.0, anchor="D"),  # the anchor itself
            record(4, "B", 0.9, 0.8, 1.0, status="failed")])
        records, within, pairs, between = record_noise_sources.noise_sources(path)
        self.assertEqual((records, pairs), (3, 1))
        self.assertAlmostEqual(between, 0.1 / (0.6745 * math.sqrt(2)), places=6)
        self.assertAlmostEqual(within, record_noise_sources.within_run_noise(record(4, "A", 0.5, 0.45, 0.55)))

    def test_no_repeats_give_no_between_run_estimate(self):
        _, _, pairs, between = record_noise_sources.noise_sources(self.write("f/w.jsonl", [record(4, "A", 0.5)]))
        self.assertEqual((pairs, between), (0, None))

    def test_a_truncated_database_is_refused_naming_the_line(self):
        path = self.write("f/w.jsonl", '{"status": "ok"}\n{"status": "o')
        with self.assertRaises(SystemExit) as exit_:
            record_noise_sources.noise_sources(path)
        self.assertIn("w.jsonl:2: not a JSON record", str(exit_.exception.code))


class MainTest(ScriptTest):
    def test_prints_both_estimates_and_trains_beside_the_database(self):
        path = self.write("f/w.jsonl", [record(4, "A", 0.5, 0.45, 0.55), record(4, "A", 0.5 * math.exp(0.1))])
        self.write("f/w_train.json", {"record_noise": 0.042})
        other = self.write("g/w.jsonl", [record(4, "A", 0.5)])
        code, out = self.run_main(record_noise_sources, ["record_noise_sources.py", path, other])
        self.assertIsNone(code)
        self.assertIn("| g/w.jsonl | 1 | - | 0 | - | - |", out)  # named below the folder both share
        # within: ln(0.55 / 0.45) / 2.563 x 1.2533 / sqrt(10) = 0.031 (the second record has no band)
        self.assertIn("| f/w.jsonl | 2 | 0.031 | 1 | 0.105 | 0.042 |", out)

    def test_anything_but_a_database_is_refused(self):
        code, _ = self.run_main(record_noise_sources, ["record_noise_sources.py", self.write("f/w.json", "{}")])
        self.assertIn("is not a campaign database", code)


if __name__ == "__main__":
    unittest.main()
