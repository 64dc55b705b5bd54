"""Tests of experiments/policy_accuracy/budgeted_table.py (the per-workload tables of RESULTS.md)."""
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import budgeted_table  # noqa: E402

TRAIN = {"shapes": 8, "policy_agrees_with_table": 6, "policy_within_noise_of_best": 7, "policy_within_label_tie_band": 8,
         "leave_one_shape_out": {"folds": 8, "choice_measured": 6, "within_noise_of_best": 5}}


def method(name, ctma, geo, worst):
    return {"method": name, "ctma": ctma, "geo_mean_oracle_ratio": geo, "worst": worst, "clearly_within": 7,
            "clear_misses": 1, "sweep_ctma": 0.5, "sweep_geo_mean_oracle_ratio": 0.9}


class MainTest(ScriptTest):
    def folder(self):
        self.write("budgets.txt", "dlrm_mlp 216 172\nqwen2_mlp 32 25\n")
        self.write("protocol.txt", "protocol: share 0.10 of plan configs x 8 tuned shapes (draws), agent rl seed 1\n")
        self.write("dlrm_mlp_train.json", TRAIN)
        self.write("dlrm_mlp_evaluate.json", {"confirm_rounds": 30, "methods": [
            method("crmap policy (hook)", 0.875, 0.984, 0.9), method("static plan", 0.5, 0.95, 0.8)]})

    def test_a_table_per_set_with_budget_share_reproduction_and_every_method(self):
        self.folder()
        code, out = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, "qwen2_mlp"])
        self.assertIsNone(code)
        self.assertLess(out.index("### held-out workloads"), out.index("### built-in workloads"))
        self.assertIn("| qwen2_mlp | | | | (not evaluated yet) |", out)
        self.assertIn("| dlrm_mlp | 216 | 172 (10%) | 6 of 8 (7 within 5%, 8 within the labels' tie band); left out: "
                      "5 of 6 (2 unmeasured) | crmap policy (hook) | 88% | 0.984 | 0.900 | 7 / 1 | 50%, 0.900 |", out)
        self.assertIn("|  |  |  |  | static plan | 50% | 0.950 | 0.800 | 7 / 1 | 50%, 0.900 |", out)

    def test_a_budget_of_the_configs_the_host_runs_says_so_in_its_header(self):
        self.folder()
        self.write("protocol.txt", "protocol: share 0.10 of plan configs this host runs x 8 tuned shapes (draws)\n")
        code, out = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, ""])
        self.assertIsNone(code)
        self.assertIn("| workload | plan configs this host runs | budget |", out)
        self.folder()
        code, out = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, ""])
        self.assertIn("| workload | plan configs | budget |", out)

    def test_a_budgets_line_with_its_own_tuned_shapes_states_the_share_against_them(self):
        self.folder()
        self.write("budgets.txt", "dlrm_mlp 216 518 24\nqwen2_mlp 32 25\n")  # 518 = 10% of 216 x 24
        code, out = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, "qwen2_mlp"])
        self.assertIsNone(code)
        self.assertIn("| dlrm_mlp | 216 | 518 (10%) |", out)
        self.write("budgets.txt", "dlrm_mlp 216 518\n")  # three words: the protocol's 8 tuned shapes
        code, out = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, ""])
        self.assertIn("| dlrm_mlp | 216 | 518 (30%) |", out)

    def test_a_truncated_report_is_named(self):
        self.folder()
        self.write("dlrm_mlp_evaluate.json", '{"confirm_rounds": 30, "methods": [')
        code, _ = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, ""])
        self.assertIn("dlrm_mlp_evaluate.json: not JSON", code)

    def test_a_malformed_budgets_or_protocol_line_is_named(self):
        self.folder()
        self.write("budgets.txt", "dlrm_mlp 216 172\nqwen2_mlp 32\n")
        code, _ = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, ""])
        self.assertIn("budgets.txt:2: expected 'workload plan_configs budget [tuned_shapes]', got 'qwen2_mlp 32'", code)
        self.folder()
        self.write("protocol.txt", "protocol: something else\n")
        code, _ = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, ""])
        self.assertIn("protocol.txt does not say 'x N tuned shapes'", code)

    def test_a_folder_budgeted_sh_did_not_write_is_refused(self):
        code, _ = self.run_main(budgeted_table, ["budgeted_table.py", self.dir, ""])
        self.assertIn("budgets.txt is missing", code)
        code, _ = self.run_main(budgeted_table, ["budgeted_table.py", self.dir])
        self.assertIn("usage: budgeted_table.py", code)


if __name__ == "__main__":
    unittest.main()
