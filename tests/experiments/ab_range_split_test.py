"""Tests of experiments/policy_accuracy/ab_range_split.py (reads an ab_campaigns.sh folder)."""
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import ab_range_split  # noqa: E402


def shape(batch, a, b, nearest):
    return {"dims": {"batch": batch}, "compared policy (hook)": {"oracle_ratio": a},
            "crmap policy (hook)": {"oracle_ratio": b}, "nearest tuned shape": {"oracle_ratio": nearest}}


class MainTest(ScriptTest):
    def main(self, argv):
        return self.call_main(ab_range_split, argv)

    def test_held_out_shapes_split_by_as_tuned_range_over_seeds(self):
        for seed in (1, 2):
            self.write(f"a_seed{seed}/w_train.json", {"tuned_shapes": [{"dims": {"batch": 4}}, {"dims": {"batch": 16}}]})
        self.write("b_seed1/w_evaluate.json", {"shapes": [shape(8, 0.90, 1.00, 0.96), shape(64, 0.80, 0.97, 0.5)]})
        self.write("b_seed2/w_evaluate.json", {"shapes": [shape(2, 1.00, 0.94, 1.0)]})
        code, out, _ = self.main(["ab_range_split.py", self.dir])
        self.assertEqual(code, 0)
        self.assertIn("| w | beyond (2) | 1 of 2, 0.894 | 1 of 2, 0.955 | 1 of 2, 0.707 |", out)
        self.assertIn("| w | inside (1) | 0 of 1, 0.900 | 1 of 1, 1.000 | 1 of 1, 0.960 |", out)

    def test_above_splits_the_shapes_beyond_into_above_and_the_rest(self):
        self.write("a_seed1/w_train.json", {"tuned_shapes": [{"dims": {"batch": 4, "seq": 8}},
                                                             {"dims": {"batch": 16, "seq": 32}}]})
        self.write("b_seed1/w_evaluate.json", {"shapes": [
            {**shape(64, 0.80, 0.97, 0.5), "dims": {"batch": 64, "seq": 8}},     # above
            {**shape(64, 0.90, 0.90, 0.9), "dims": {"batch": 64, "seq": 4}},     # above and below: not above
            {**shape(8, 1.00, 1.00, 1.0), "dims": {"batch": 8, "seq": 16}}]})   # inside
        code, out, _ = self.main(["ab_range_split.py", "--above", self.dir])
        self.assertEqual(code, 0)
        self.assertIn("| w | above (1) | 0 of 1, 0.800 | 1 of 1, 0.970 | 0 of 1, 0.500 |", out)
        self.assertIn("| w | beyond, not above (1) | 0 of 1, 0.900 | 0 of 1, 0.900 | 0 of 1, 0.900 |", out)
        self.assertIn("| w | inside (1) |", out)
        code, out, _ = self.main(["ab_range_split.py", self.dir])
        self.assertIn("| w | beyond (2) |", out)

    def test_a_missing_or_malformed_file_is_exit_two_naming_it(self):
        code, _, err = self.main(["ab_range_split.py", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("run ab_campaigns.sh first", err)
        self.write("b_seed1/w_evaluate.json", {"shapes": [shape(8, 0.9, 1.0, 1.0)]})
        code, _, err = self.main(["ab_range_split.py", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("a_seed1/w_train.json", err)
        self.write("a_seed1/w_train.json", "{truncated")
        code, _, err = self.main(["ab_range_split.py", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("a_seed1/w_train.json", err)
        self.assertEqual(self.main(["ab_range_split.py"])[0], 2)


if __name__ == "__main__":
    unittest.main()
