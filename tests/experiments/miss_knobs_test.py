"""Tests of experiments/policy_accuracy/miss_knobs.py (reads evaluations under folders)."""
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import miss_knobs  # noqa: E402

ORACLE = "fuse.fc1=bias+relu;weights=packed;threads=1"
NOT_PICKS = {method: {"config": "fuse.fc1=none;weights=stored;threads=2", "oracle_ratio": 0.3}
             for method in ("static plan", "nearest tuned shape", "default config")}  # misses, but not the policies'


def pick(config, ratio, high=None):
    return {"config": config, "oracle_ratio": ratio, **({"oracle_ratio_high": high} if high is not None else {})}


def shape(b_pick, a_pick=None, oracle=ORACLE):
    row = {"dims": {"batch": 8}, "crmap policy (hook)": b_pick, **NOT_PICKS}
    if oracle is not None:
        row["oracle_config"] = oracle
    if a_pick is not None:
        row["compared policy (hook)"] = a_pick
    return row


class MainTest(ScriptTest):
    def main(self, argv):
        return self.call_main(miss_knobs, argv)

    def test_misses_split_by_whether_threads_differ(self):
        self.write("b_seed1/w_evaluate.json", {"shapes": [
            shape(pick("fuse.fc1=bias+relu;weights=packed;threads=2", 0.90, high=0.93),  # threads only; clear
                  pick("fuse.fc1=bias;weights=packed;threads=2", 0.80, high=0.96)),  # threads and a fusion
            shape(pick("fuse.fc1=bias+relu;weights=stored;threads=1", 0.94),  # weights only; no interval: not clear
                  pick(ORACLE, 0.99)),  # not a miss
            shape(pick("fuse.fc1=bias;weights=packed;threads=1", 0.95))]})  # 0.95 is within 5%: not a miss
        # any depth; this miss differs in threads and in a knob the pick lacks
        self.write("b_seed2/deeper/v_evaluate.json", {"shapes": [shape(pick("fuse.fc1=bias+relu;threads=2", 0.5))]})
        code, out, _ = self.main(["miss_knobs.py", self.dir])
        self.assertEqual(code, 0)
        self.assertIn(f"| {self.dir} | 6 | 4 | 1 | 1 | 2 | 1 | 0 | 0 |", out)
        self.assertIn("| threads | 3 |", out)
        self.assertIn("| weights | 2 |", out)  # stored, and absent from the pick
        self.assertIn("| fuse.fc1 | 1 |", out)

    def test_a_row_per_folder_knobs_counted_over_all_and_shapes_without_an_oracle_skipped(self):
        self.write("one/w_evaluate.json", {"shapes": [shape(pick("fuse.fc1=bias+relu;weights=packed;threads=2", 0.9)),
                                                      shape(pick(ORACLE, 0.1), oracle=None)]})
        self.write("two/w_evaluate.json", {"shapes": [shape({"oracle_ratio": 0.1}),  # a pick without a config
                                                      shape(pick("fuse.fc1=bias;weights=packed;threads=2", 0.9))]})
        code, out, _ = self.main(["miss_knobs.py", f"{self.dir}/one", f"{self.dir}/two"])
        self.assertEqual(code, 0)
        self.assertIn(f"| {self.dir}/one | 1 | 1 | 0 | 1 | 0 | 0 | 0 | 0 |", out)
        self.assertIn(f"| {self.dir}/two | 1 | 1 | 0 | 0 | 1 | 0 | 0 | 0 |", out)
        self.assertIn("| threads | 2 |", out)

    def test_misses_that_are_the_static_plan_or_the_default_config_are_counted(self):
        unfused = "fuse.fc1=none;weights=stored;threads=2"  # NOT_PICKS' config: the static plan and the default
        fused = "fuse.fc1=bias;weights=stored;threads=2"
        static_fused = dict(shape(pick(fused, 0.9)), **{"static plan": pick(fused, 0.9)})
        self.write("w_evaluate.json", {"shapes": [
            shape(pick(unfused, 0.8), pick(unfused, 0.8)),  # both picks miss: the static plan and the default
            static_fused,  # the static plan, not the default
            shape(pick(fused, 0.9)),  # neither
            shape(pick(unfused, 0.99))]})  # the default, but no miss
        code, out, _ = self.main(["miss_knobs.py", self.dir])
        self.assertEqual(code, 0)
        self.assertIn(f"| {self.dir} | 5 | 4 | 0 | 0 | 4 | 0 | 3 | 2 |", out)

    def test_no_folder_no_evaluation_or_a_malformed_one_is_exit_two_naming_it(self):
        code, _, err = self.main(["miss_knobs.py", f"{self.dir}/absent"])
        self.assertEqual(code, 2)
        self.assertIn(f"{self.dir}/absent is not a folder", err)
        code, _, err = self.main(["miss_knobs.py", self.dir])
        self.assertEqual(code, 2)
        self.assertIn(f"no <workload>_evaluate.json under {self.dir}", err)
        self.write("w_evaluate.json", "{truncated")
        code, _, err = self.main(["miss_knobs.py", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("w_evaluate.json: not JSON", err)
        self.write("w_evaluate.json", {"held_out": 8})
        code, _, err = self.main(["miss_knobs.py", self.dir])
        self.assertEqual(code, 2)
        self.assertIn("w_evaluate.json: not an evaluation crmap wrote", err)
        code, _, err = self.main(["miss_knobs.py"])
        self.assertEqual(code, 2)
        self.assertIn("usage: miss_knobs.py DIR", err)


if __name__ == "__main__":
    unittest.main()
