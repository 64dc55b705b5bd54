"""Tests of experiments/policy_accuracy/oracle_provenance.py (reads stored results; measures nothing)."""
import os
import unittest

from script_test_support import ScriptTest, record  # first: puts the scripts on the import path

import oracle_provenance  # noqa: E402
from oracle_provenance import campaign_configs, knobs_apart, record_ratios  # noqa: E402


class RecordRatiosTest(ScriptTest):
    def test_ok_records_with_a_ratio_by_shape_and_config(self):
        path = self.write("w.jsonl", [
            record({"batch": 4, "seq": 8}, "a=1", 0.5),
            record({"seq": 8, "batch": 4}, "a=1", 0.7),  # the same shape, its dims in another order
            record({"batch": 4, "seq": 8}, "a=2", 0.9, status="failed"),
            {"status": "ok", "dims": {"batch": 4, "seq": 8}, "config": "a=3"},  # no ratio: the anchor itself
        ])
        ratios = record_ratios(path)
        self.assertEqual(list(ratios), [(("batch", 4), ("seq", 8))])
        self.assertEqual(dict(ratios[(("batch", 4), ("seq", 8))]), {"a=1": [0.5, 0.7]})

    def test_the_best_recorded_config_is_the_best_median_of_its_records(self):
        path = self.write("w.jsonl", [
            record({"batch": 4}, "a=1", 0.5), record({"batch": 4}, "a=1", 0.9), record({"batch": 4}, "a=1", 0.9),
            record({"batch": 4}, "a=2", 0.8), record({"batch": 8}, "a=3", 0.7)])
        labels, measured = campaign_configs(path)
        self.assertEqual(labels, {"a=2", "a=3"})  # a=1's one lucky record does not make it best
        self.assertEqual(measured, {"a=1", "a=2", "a=3"})


class KnobsApartTest(unittest.TestCase):
    def test_counts_the_knobs_set_differently(self):
        self.assertEqual(knobs_apart("a=1;b=2;c=3", "a=1;b=2;c=3"), 0)
        self.assertEqual(knobs_apart("a=1;b=2;c=3", "a=1;b=5;c=4"), 2)
        self.assertEqual(knobs_apart("a=1", "a=1;b=2"), 1)  # a knob one string lacks


class MainTest(ScriptTest):
    def evaluation(self, shapes):
        self.write("f/w.jsonl", [record({"batch": 4}, "a=1;b=1", 0.5), record({"batch": 4}, "a=1;b=2", 0.9),
                                  record({"batch": 8}, "a=2;b=1", 0.6)])
        self.write("f/w_evaluate.json", {"shapes": shapes})

    def test_places_each_confirmed_oracle_and_counts_knobs_to_the_nearest_best(self):
        pick = lambda ratio: {"config": "a=1;b=1", "oracle_ratio": ratio}
        self.evaluation([
            {"dims": {"batch": 5}, "confirmed": True, "oracle_config": "a=1;b=1", "crmap policy (hook)": pick(1.0)},
            {"dims": {"batch": 6}, "confirmed": True, "oracle_config": "a=1;b=2", "crmap policy (hook)": pick(0.8)},
            {"dims": {"batch": 7}, "confirmed": True, "oracle_config": "a=3;b=3", "crmap policy (hook)": pick(0.9)},
            {"dims": {"batch": 9}, "confirmed": False, "oracle_config": "a=9;b=9", "crmap policy (hook)": pick(0.1)},
        ])
        code, out = self.run_main(oracle_provenance, ["oracle_provenance.py", self.dir])
        self.assertIsNone(code)
        self.assertIn("| a tuned shape's best-recorded config | 1 | 0 |", out)
        self.assertIn("| measured, never best-recorded | 0 | 1 |", out)
        self.assertIn("| never measured | 0 | 1 |", out)
        self.assertIn("| all | 1 | 2 |", out)  # the unconfirmed shape is left out
        self.assertIn("| 0 | 1 | 0 |", out)
        self.assertIn("| 1 | 0 | 1 |", out)  # a=1;b=2 is one knob from a=1;b=1
        self.assertIn("| 2 | 0 | 1 |", out)  # a=3;b=3 two from either

    def test_a_folder_without_a_confirmed_evaluation_is_refused(self):
        code, _ = self.run_main(oracle_provenance, ["oracle_provenance.py", self.dir])
        self.assertIn("no confirmed evaluation", code)
        code, _ = self.run_main(oracle_provenance, ["oracle_provenance.py", os.path.join(self.dir, "none")])
        self.assertIn("is not a folder", code)


if __name__ == "__main__":
    unittest.main()
