"""Tests of experiments/policy_accuracy/ratios.py."""
import math
import unittest

import script_test_support  # noqa: F401  (puts the scripts on the import path)
from ratios import geometric_mean


class GeometricMeanTest(unittest.TestCase):
    def test_the_nth_root_of_the_product(self):
        self.assertAlmostEqual(geometric_mean([0.5, 2.0]), 1.0)
        self.assertAlmostEqual(geometric_mean([0.9, 0.9, 0.9]), 0.9)
        self.assertAlmostEqual(geometric_mean([1.0, 0.25]), 0.5)  # not the arithmetic mean, 0.625

    def test_takes_any_iterable_once(self):
        self.assertAlmostEqual(geometric_mean(v for v in (4.0, 1.0)), 2.0)

    def test_a_zero_counts_as_the_floor_instead_of_failing(self):
        self.assertAlmostEqual(geometric_mean([0.0, 1.0]), math.sqrt(1e-6))
        self.assertAlmostEqual(geometric_mean([0.0, 1.0], floor=1e-4), 1e-2)

    def test_no_values_give_nan(self):
        self.assertTrue(math.isnan(geometric_mean([])))


if __name__ == "__main__":
    unittest.main()
