"""Tests of experiments/policy_accuracy/calibration_check.py's rules (its main trains and queries with crmap)."""
import os
import unittest

from script_test_support import SCRIPTS  # first: puts the scripts on the import path

from calibration_check import beyond_tuned_range, brier, workload_arg  # noqa: E402

TABLE = [{"dims": {"batch": 4}}, {"dims": {"batch": 64}}]


class BeyondTunedRangeTest(unittest.TestCase):
    def test_evaluates_own_flag_is_taken_as_it_is(self):
        self.assertFalse(beyond_tuned_range({"dims": {"batch": 1000}, "beyond_tuned_range": False}, TABLE))
        self.assertTrue(beyond_tuned_range({"dims": {"batch": 8}, "beyond_tuned_range": True}, TABLE))

    def test_without_the_flag_the_tables_range_decides(self):
        self.assertTrue(beyond_tuned_range({"dims": {"batch": 65}}, TABLE))
        self.assertFalse(beyond_tuned_range({"dims": {"batch": 64}}, TABLE))


class BrierTest(unittest.TestCase):
    def test_mean_squared_difference_of_stated_and_outcome(self):
        self.assertEqual(brier([(1.0, True), (0.0, True)]), 0.5)
        self.assertAlmostEqual(brier([(0.8, True), (0.8, False)]), (0.04 + 0.64) / 2)


class WorkloadArgTest(unittest.TestCase):
    def test_a_held_out_workload_is_its_file_and_a_built_in_its_name(self):
        root = os.path.dirname(os.path.dirname(SCRIPTS))
        path = workload_arg(root, "qwen2_mlp")
        self.assertEqual(path, os.path.join(root, "datasets/heldout/workloads/qwen2_mlp.json"))
        self.assertTrue(os.path.isfile(path))
        self.assertEqual(workload_arg(root, "bert_ffn"), "bert_ffn")


if __name__ == "__main__":
    unittest.main()
