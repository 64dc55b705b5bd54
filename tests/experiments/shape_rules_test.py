"""Tests of experiments/policy_accuracy/shape_rules.py."""
import unittest

import script_test_support  # noqa: F401  (puts the scripts on the import path)
from shape_rules import above_range, beyond_range, log2_distance

TUNED = [{"batch": 4, "seq": 16}, {"batch": 32, "seq": 64}]


class BeyondRangeTest(unittest.TestCase):
    def test_a_shape_inside_every_dims_range_is_not_beyond(self):
        self.assertFalse(beyond_range({"batch": 8, "seq": 16}, TUNED))
        self.assertFalse(beyond_range({"batch": 32, "seq": 64}, TUNED))  # the range's ends are inside

    def test_one_dim_below_or_above_its_range_is_beyond(self):
        self.assertTrue(beyond_range({"batch": 3, "seq": 32}, TUNED))
        self.assertTrue(beyond_range({"batch": 8, "seq": 65}, TUNED))

    def test_a_dim_no_tuned_shape_has_is_not_judged(self):
        self.assertFalse(beyond_range({"batch": 8, "heads": 1000}, TUNED))


class AboveRangeTest(unittest.TestCase):
    def test_some_dim_above_and_none_below(self):
        self.assertTrue(above_range({"batch": 33, "seq": 16}, TUNED))
        self.assertTrue(above_range({"batch": 64, "seq": 128}, TUNED))

    def test_inside_below_or_mixed_is_not_above(self):
        self.assertFalse(above_range({"batch": 8, "seq": 16}, TUNED))
        self.assertFalse(above_range({"batch": 3, "seq": 32}, TUNED))
        self.assertFalse(above_range({"batch": 64, "seq": 8}, TUNED))
        self.assertFalse(above_range({"batch": 8, "heads": 1000}, TUNED))  # a dim no tuned shape has


class Log2DistanceTest(unittest.TestCase):
    def test_squared_log2_differences_over_the_asked_dims(self):
        self.assertEqual(log2_distance({"batch": 4, "seq": 16}, {"batch": 16, "seq": 8}), 4 + 1)
        self.assertEqual(log2_distance({"batch": 4, "seq": 16}, {"batch": 4}), 0)  # seq not asked

    def test_a_dim_the_shape_lacks_counts_as_one(self):
        self.assertEqual(log2_distance({}, {"batch": 8}), 9)


if __name__ == "__main__":
    unittest.main()
