"""Tests of experiments/policy_accuracy/ab_table.py (the A/B tables of RESULTS.md)."""
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import ab_table  # noqa: E402


def method(name, ctma, geo, worst):
    return {"method": name, "ctma": ctma, "geo_mean_oracle_ratio": geo, "worst": worst}


def evaluation(a_geo, b_geo, a_worst=0.8):
    return {"methods": [method("crmap policy (hook)", 1.0, b_geo, 0.96),
                        method("compared policy (hook)", 0.5, a_geo, a_worst),
                        method("static plan", 0.25, 0.9, 0.7), method("nearest tuned shape", 0.75, 0.95, 0.9)]}


class MainTest(ScriptTest):
    def test_per_seed_rows_and_the_summary_over_seeds(self):
        self.write("b_seed1/version.txt", "crmap 0.1.0\nhost: AMD EPYC, isa avx2\n")
        self.write("b_seed1/w_evaluate.json", evaluation(0.90, 0.99))  # B ahead by 10%
        self.write("b_seed2/w_evaluate.json", evaluation(0.99, 0.985, a_worst=0.7))  # level (within 1%)
        self.write("b_seed10/w_evaluate.json", evaluation(1.00, 0.95))  # behind
        code, out = self.run_main(ab_table, ["ab_table.py", self.dir])
        self.assertIsNone(code)
        self.assertTrue(out.startswith("host: AMD EPYC, isa avx2\n"))
        self.assertIn("| w | 1 | 50%, 0.900, 0.800 | 100%, 0.990, 0.960 | 1.100 | 25%, 0.900, 0.700 | "
                      "75%, 0.950, 0.900 |", out)
        self.assertLess(out.index("| w | 2 |"), out.index("| w | 10 |"))  # seeds in numeric order
        # over seeds: A (0.9 x 0.99 x 1.0)^(1/3) = 0.962, its worst shape of all seeds 0.7; B/A the geometric mean of 1.1, 0.99495 and 0.95
        self.assertIn("| w | 3 | 50%, 0.962, 0.700 | 100%, 0.975, 0.960 | 1.013 | 1 / 1 / 1 |", out)

    def test_the_pairs_of_every_workload_summed_up(self):
        self.write("b_seed1/w_evaluate.json", evaluation(0.90, 0.99))  # 1.1
        self.write("b_seed1/v_evaluate.json", evaluation(1.00, 0.95))  # 0.95
        self.write("b_seed2/v_evaluate.json", evaluation(1.00, 1.00))  # 1.0
        code, out = self.run_main(ab_table, ["ab_table.py", self.dir])
        self.assertIsNone(code)
        # (1.1 x 0.95 x 1.0)^(1/3) = 1.0148
        self.assertIn("Over all 3 workload-seed pairs: B/A geo-mean 1.015; B ahead / level (1%) / behind: 1 / 1 / 1",
                      out)

    def test_an_evaluation_without_as_policy_or_no_seed_folder_is_refused(self):
        code, _ = self.run_main(ab_table, ["ab_table.py", self.dir])
        self.assertIn("no b_seed<N> folder", code)
        self.write("b_seed1/w_evaluate.json", {"methods": [method("crmap policy (hook)", 1, 1, 1)]})
        code, _ = self.run_main(ab_table, ["ab_table.py", self.dir])
        self.assertIn("holds no 'compared policy (hook)'", code)
        self.write("b_seed1/w_evaluate.json", '{"methods": [')
        code, _ = self.run_main(ab_table, ["ab_table.py", self.dir])
        self.assertIn("b_seed1/w_evaluate.json: not JSON", code)


if __name__ == "__main__":
    unittest.main()
