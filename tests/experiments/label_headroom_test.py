"""Tests of experiments/policy_accuracy/label_headroom.py: what it measures at a shape and what it refuses."""
import os
import unittest
from unittest import mock

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import label_headroom  # noqa: E402

SHAPE = {"dims": {"batch": 8}, "oracle_config": "O", "confirmed": True,
         "crmap policy (hook)": {"config": "A"}, "static plan": {"config": "S"}, "nearest tuned shape": {"config": "A"}}


class MeasureShapeTest(unittest.TestCase):
    def measure(self, labels, outcome):
        asked = []

        def speedups(crmap, root, workload, dims, anchor, configs, rounds, env):
            asked.append((anchor, configs))
            return outcome(configs) if callable(outcome) else outcome

        with mock.patch.object(label_headroom, "speedups_over_anchor", speedups):
            return label_headroom.measure_shape("crmap", "root", "w", SHAPE, labels, 30, {}), asked

    def test_every_label_and_pick_once_beside_the_oracle_which_scores_one_unmeasured(self):
        measured = {"A": (0.90, (0.88, 0.93)), "B": (0.97, (0.955, 0.99)), "S": (0.70, None)}
        result, asked = self.measure(["O", "A", "B"], lambda configs: [measured[c] for c in configs])
        self.assertEqual(asked, [("O", ["A", "B", "S"])])  # the oracle is the anchor, A asked once
        self.assertEqual(result["methods"], {"crmap policy (hook)": 0.90, "static plan": 0.70,
                                             "nearest tuned shape": 0.90})
        self.assertEqual(result["best_label"], 1.0)  # the oracle is a label
        self.assertTrue(result["label_clearly_within"])
        self.assertEqual(result["ratios"]["S"], [0.70, None, None])

    def test_some_label_clearly_within_needs_its_whole_interval_at_or_above_095(self):
        measured = {"A": (0.96, (0.94, 0.99)), "S": (0.99, (0.97, 1.0))}  # S is clearly within, but no label
        result, _ = self.measure(["A"], lambda configs: [measured[c] for c in configs])
        self.assertEqual(result["best_label"], 0.96)
        self.assertFalse(result["label_clearly_within"])

    def test_a_failed_compare_is_passed_on(self):
        result, _ = self.measure(["A"], "config 0 failed")
        self.assertEqual(result, "config 0 failed")


class MainTest(ScriptTest):
    def test_bad_arguments_are_refused_before_anything_is_written(self):
        out = os.path.join(self.dir, "out.jsonl")
        os.makedirs(os.path.join(self.dir, "f"))
        crmap = self.fake_crmap()
        for argv, message in (
                (["--out", out, os.path.join(self.dir, "f"), os.path.join(self.dir, "f")], "not an executable crmap"),
                (["--out", out, crmap, os.path.join(self.dir, "none")], "is not a folder"),
                (["--out", out, crmap, os.path.join(self.dir, "f")], "version.txt is missing"),
                (["--rounds", "3", "--out", out, crmap, os.path.join(self.dir, "f")], "--rounds needs")):
            code, _ = self.run_main(label_headroom, ["label_headroom.py"] + argv)
            self.assertIn(message, str(code))
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
