"""Tests of experiments/policy_accuracy/build_pair_check.py (two builds' policies; the loop is
decision_pair_check.py's, tested there)."""
import unittest
from unittest import mock

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import build_pair_check  # noqa: E402


class MainTest(ScriptTest):
    def test_each_build_is_a_side_with_crmap_trains_defaults_and_b_measures(self):
        with mock.patch.object(build_pair_check, "check") as check:
            code, _, _ = self.call_main(build_pair_check, ["--rounds", "12", "/a/crmap", "/b/crmap", "f1", "f2"])
        self.assertEqual(code, 0)
        check.assert_called_once_with([("A", "/a/crmap", []), ("B", "/b/crmap", [])], "/b/crmap", ["f1", "f2"], 12,
                                      None)

    def test_fewer_than_two_builds_and_a_folder_is_refused_with_the_usage(self):
        with mock.patch.object(build_pair_check, "check") as check, self.assertRaises(SystemExit) as exit_:
            self.call_main(build_pair_check, ["/a/crmap", "/b/crmap"])
        self.assertIn("usage: build_pair_check.py", str(exit_.exception.code))
        check.assert_not_called()


if __name__ == "__main__":
    unittest.main()
