"""Tests of experiments/policy_accuracy/oracle_threads.py (reads evaluations under folders)."""
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import oracle_threads  # noqa: E402


def evaluation(*batch_threads):
    return {"shapes": [{"dims": {"batch": b}, "oracle_config": f"weights=packed;threads={t}"}
                       for b, t in batch_threads]}


class MainTest(ScriptTest):
    def main(self, argv):
        return self.call_main(oracle_threads, argv)

    def test_each_evaluation_in_range_with_its_verdict(self):
        self.write("a/b_seed1/w_evaluate.json", evaluation((161, 2), (194, 2), (205, 1), (8, 1)))  # 8 out of range
        self.write("a/b_seed2/w_evaluate.json", evaluation((161, 1), (194, 2), (205, 1), (176, 2)))
        self.write("b/w_evaluate.json", evaluation((161, 1), (194, 1), (205, 1)))
        self.write("b/v_evaluate.json", evaluation((161, 2), (194, 2), (205, 2)))  # another workload
        self.write("c/w_evaluate.json", evaluation((8, 2)))  # nothing in range: no row
        code, out, _ = self.main(["oracle_threads.py", "w", "batch", "150", "210",
                                  f"{self.dir}/a", f"{self.dir}/b", f"{self.dir}/c"])
        self.assertEqual(code, 0)
        self.assertIn(f"| {self.dir}/a/b_seed1/w_evaluate.json | 161 194 205 | 2 2 1 | mostly 2 |", out)
        self.assertIn(f"| {self.dir}/a/b_seed2/w_evaluate.json | 161 194 205 176 | 1 2 1 2 | mixed |", out)
        self.assertIn(f"| {self.dir}/b/w_evaluate.json | 161 194 205 | 1 1 1 | mostly 1 |", out)
        self.assertNotIn("v_evaluate", out)
        self.assertIn("mixed: 1, mostly 1: 1, mostly 2: 1", out)

    def test_two_shapes_are_never_mostly_anything(self):
        self.write("w_evaluate.json", evaluation((161, 2), (194, 1)))
        code, out, _ = self.main(["oracle_threads.py", "w", "batch", "150", "210", self.dir])
        self.assertEqual(code, 0)
        self.assertIn("| 161 194 | 2 1 | mixed |", out)

    def test_the_ends_of_the_range_count_and_only_the_workloads_own_file_is_read(self):
        self.write("w_evaluate.json", {"shapes": [
            {"dims": {"batch": 161}, "oracle_config": "threads=2"},
            {"dims": {"batch": 205}, "oracle_config": "weights=packed"},  # no threads: "?"
            {"dims": {"batch": 180}},  # no oracle config: skipped
            {"dims": {"batch": 206}, "oracle_config": "threads=1"}]})
        self.write("xw_evaluate.json", evaluation((170, 1)))  # another workload whose name ends like this one's
        code, out, _ = self.main(["oracle_threads.py", "w", "batch", "161", "205", self.dir])
        self.assertEqual(code, 0)
        self.assertIn("| 161 205 | 2 ? | mixed |", out)
        self.assertNotIn("xw_evaluate", out)

    def test_nothing_on_stdout_when_a_later_folder_fails(self):
        self.write("a/w_evaluate.json", evaluation((161, 2)))
        code, out, err = self.main(["oracle_threads.py", "w", "batch", "150", "210", f"{self.dir}/a",
                                    f"{self.dir}/absent"])
        self.assertEqual(code, 2)
        self.assertEqual(out, "")
        self.assertIn("absent is not a folder", err)

    def test_bad_arguments_and_malformed_files_are_exit_two_naming_them(self):
        self.assertEqual(self.main(["oracle_threads.py", "w", "batch", "150", "210"])[0], 2)
        code, _, err = self.main(["oracle_threads.py", "w", "batch", "x", "210", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("LO and HI must be numbers", err)
        code, _, err = self.main(["oracle_threads.py", "w", "batch", "150", "210", f"{self.dir}/absent"])
        self.assertEqual(code, 2)
        self.assertIn("absent is not a folder", err)
        code, _, err = self.main(["oracle_threads.py", "w", "batch", "150", "210", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("no w_evaluate.json with a held-out batch in [150, 210]", err)
        self.write("w_evaluate.json", "{truncated")
        code, _, err = self.main(["oracle_threads.py", "w", "batch", "150", "210", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("w_evaluate.json: not JSON", err)
        self.write("w_evaluate.json", {"shapes": [{"oracle_config": "threads=1"}]})
        code, _, err = self.main(["oracle_threads.py", "w", "batch", "150", "210", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("w_evaluate.json: not an evaluation crmap wrote", err)


if __name__ == "__main__":
    unittest.main()
