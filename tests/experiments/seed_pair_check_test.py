"""Tests of experiments/policy_accuracy/seed_pair_check.py (one database trained with two seeds; the loop is
decision_pair_check.py's, tested there)."""
import unittest
from unittest import mock

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import seed_pair_check  # noqa: E402


class MainTest(ScriptTest):
    def test_each_seed_is_a_side_of_one_crmap(self):
        with mock.patch.object(seed_pair_check, "check") as check:
            code, _, _ = self.call_main(seed_pair_check, ["--rounds", "12", "/c/crmap", "f1", "f2"])
        self.assertEqual(code, 0)
        check.assert_called_once_with([("seed1", "/c/crmap", ["--seed", "1"]), ("seed2", "/c/crmap", ["--seed", "2"])],
                                      "/c/crmap", ["f1", "f2"], 12, None)
        with mock.patch.object(seed_pair_check, "check") as check:
            self.call_main(seed_pair_check, ["--seed-a", "7", "--seed-b", "9", "/c/crmap", "f1"])
        self.assertEqual([side[2] for side in check.call_args[0][0]], [["--seed", "7"], ["--seed", "9"]])

    def test_equal_or_bad_seeds_and_no_folder_are_refused_with_the_usage(self):
        for argv in (["/c/crmap"], ["--seed-a", "2", "/c/crmap", "f"], ["--seed-b", "x", "/c/crmap", "f"]):
            with mock.patch.object(seed_pair_check, "check") as check, self.assertRaises(SystemExit) as exit_:
                self.call_main(seed_pair_check, argv)
            self.assertIn("usage: seed_pair_check.py", str(exit_.exception.code))
            check.assert_not_called()


if __name__ == "__main__":
    unittest.main()
