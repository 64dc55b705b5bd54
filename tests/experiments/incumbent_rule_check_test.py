"""Tests of experiments/policy_accuracy/incumbent_rule_check.py (two `--incumbent` rules; the loop is
decision_pair_check.py's, tested there)."""
import unittest
from unittest import mock

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import incumbent_rule_check  # noqa: E402


class MainTest(ScriptTest):
    def test_each_rule_is_a_side_of_the_same_crmap(self):
        with mock.patch.object(incumbent_rule_check, "check") as check:
            self.run_main(incumbent_rule_check, ["incumbent_rule_check.py", "--out", "/tmp/x", "/c/crmap", "f1"])
        check.assert_called_once_with([("static", "/c/crmap", ["--incumbent", "static"]),
                                       ("neighbours", "/c/crmap", ["--incumbent", "neighbours"])], "/c/crmap", ["f1"],
                                      30, "/tmp/x")

    def test_no_folder_is_refused_with_the_usage(self):
        with mock.patch.object(incumbent_rule_check, "check") as check:
            code, _ = self.run_main(incumbent_rule_check, ["incumbent_rule_check.py", "/c/crmap"])
        self.assertIn("usage: incumbent_rule_check.py", str(code))
        check.assert_not_called()


if __name__ == "__main__":
    unittest.main()
