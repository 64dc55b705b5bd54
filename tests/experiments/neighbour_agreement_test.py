"""Tests of experiments/policy_accuracy/neighbour_agreement.py (reads stored evaluations)."""
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import neighbour_agreement  # noqa: E402


def shape(batch, policy, nearest):
    return {"dims": {"batch": batch}, "crmap policy (hook)": {"oracle_ratio": policy},
            "nearest tuned shape": {"oracle_ratio": nearest}}


class MainTest(ScriptTest):
    def test_splits_held_out_shapes_by_whether_their_two_nearest_tuned_shapes_share_a_label(self):
        self.write("f/w_train.json", {"tuned_shapes": [{"dims": {"batch": 4}, "label": "A"},
                                                       {"dims": {"batch": 8}, "label": "A"},
                                                       {"dims": {"batch": 64}, "label": "B"}]})
        # batch 5: nearest 4 and 8 (agree); batch 32: nearest 64, then 8 (differ)
        self.write("f/w_evaluate.json", {"shapes": [shape(5, 0.90, 1.00), shape(32, 0.99, 0.80)]})
        code, out = self.run_main(neighbour_agreement, ["neighbour_agreement.py", self.dir])
        self.assertIsNone(code)
        self.assertIn("| two nearest agree: policy | 1 | 0.000 | 0.9000 |", out)
        self.assertIn("| two nearest agree: nearest tuned shape | 1 | 1.000 | 1.0000 |", out)
        self.assertIn("| two nearest differ: policy | 1 | 1.000 | 0.9900 |", out)
        self.assertIn("| all: nearest where the two agree, else policy | 2 | 1.000 | 0.9950 |", out)

    def test_no_train_report_with_tuned_shapes_is_refused(self):
        self.write("f/w_train.json", {"shapes": 3})
        self.write("f/w_evaluate.json", {"shapes": [shape(5, 0.9, 1.0)]})
        code, _ = self.run_main(neighbour_agreement, ["neighbour_agreement.py", self.dir])
        self.assertIn("no evaluation", code)


if __name__ == "__main__":
    unittest.main()
