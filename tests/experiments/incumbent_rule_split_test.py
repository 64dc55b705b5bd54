"""Tests of experiments/policy_accuracy/incumbent_rule_split.py (reads incumbent_rule_check.py's tables)."""
import unittest
from unittest import mock

from script_test_support import ScriptTest, record  # first: puts the scripts on the import path

import incumbent_rule_split  # noqa: E402

TABLE = """| results | workload | shapes | decided differently | static → neighbours |
|---|---|---|---|---|
| budgeted/f | w | 8 | 2 | batch=2: 0.900 [0.850, 0.950] → 0.990 [0.970, 1.010]; batch=8: 0.970 → 0.930 |
"""


class ShapesOfTest(ScriptTest):
    def setUp(self):
        super().setUp()
        patch = mock.patch.object(incumbent_rule_split, "ROOT", self.dir)
        patch.start()
        self.addCleanup(patch.stop)

    def test_each_differing_shape_with_its_side_of_the_tuned_range(self):
        self.write("f/w.jsonl", [record({"batch": 4}, "A", 0.5), record({"batch": 16}, "A", 0.5)])
        rows = incumbent_rule_split.shapes_of(self.write("check.md", TABLE))
        self.assertEqual(rows, [(True, 0.900, 0.990), (False, 0.970, 0.930)])  # batch 2 lies below the tuned 4-16

    def test_a_row_naming_a_missing_database_is_refused(self):
        with self.assertRaises(SystemExit) as exit_:
            incumbent_rule_split.shapes_of(self.write("check.md", TABLE))
        self.assertIn("w.jsonl is missing", str(exit_.exception.code))


class LineTest(unittest.TestCase):
    def test_the_neighbours_rule_only_inside_the_range_takes_the_static_pick_beyond_it(self):
        line = incumbent_rule_split.line("x", [(True, 0.90, 0.99), (False, 0.97, 0.93)])
        # within 5%: static 1 → neighbours 1; neighbours/static sqrt(1.1 x 0.9588); inside only: 0.90 and 0.93
        self.assertEqual(line, "| x | 2 (1 beyond) | 1 → 1 | 1.027 | 0, 0.979 |")
        self.assertEqual(incumbent_rule_split.line("none", []), "| none | 0 | | | |")


if __name__ == "__main__":
    unittest.main()
