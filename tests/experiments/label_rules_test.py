"""Tests of experiments/policy_accuracy/label_rules.py (scores rules on stored measurements)."""
import unittest

from script_test_support import ScriptTest, record  # first: puts the scripts on the import path

import label_rules  # noqa: E402


class CampaignTest(ScriptTest):
    """A campaign of two tuned shapes and rows of three labels."""

    def setUp(self):
        super().setUp()
        label_rules._records_by_campaign.clear()
        # A is 2x the anchor at batch 4 and 1.11x at 64; B 1.25x at 4 and 1.67x at 64; C never recorded.
        self.write("f/w.jsonl", [record({"batch": 4}, "A", 0.5), record({"batch": 4}, "B", 0.8),
                                  record({"batch": 64}, "A", 0.9), record({"batch": 64}, "B", 0.6)])

    def row(self, batch):
        return {"folder": f"{self.dir}/f", "workload": "w", "dims": {"batch": batch}, "labels": ["C", "A", "B"]}


class ByRecordsTest(CampaignTest):
    def test_the_label_the_nearest_records_weigh_best(self):
        self.assertEqual(label_rules.by_records(self.row(8), 2), "A")  # near batch 4
        self.assertEqual(label_rules.by_records(self.row(48), 2), "B")  # near batch 64
        self.assertEqual(label_rules.by_records(self.row(4), 1), "A")  # only the nearest: batch 4 itself

    def test_a_label_without_records_is_chosen_only_when_none_has_one(self):
        row = self.row(8)
        row["labels"] = ["C", "D"]
        self.assertEqual(label_rules.by_records(row, 2), "C")  # the first of equals (none known)

    def test_a_missing_database_is_named(self):
        row = self.row(8)
        row["workload"] = "other"
        with self.assertRaises(SystemExit) as exit_:
            label_rules.by_records(row, 2)
        self.assertIn("other.jsonl is missing", str(exit_.exception.code))


class MainTest(CampaignTest):
    def test_scores_every_rule_on_the_measured_ratios(self):
        rows = []
        for batch, ratios in ((8, {"A": 1.0, "B": 0.90, "C": 0.5}), (48, {"A": 0.6, "B": 0.96, "C": 0.5})):
            row = self.row(batch)
            row["ratios"] = {c: [r, None, None] for c, r in ratios.items()}
            row["picks"] = {"crmap policy (hook)": "A", "static plan": "C", "nearest tuned shape": "B"}
            rows.append(row)
        path = self.write("rows.jsonl", rows)
        code, out = self.run_main(label_rules, ["label_rules.py", path])
        self.assertIsNone(code)
        self.assertIn("| crmap policy (hook) | 2 | 1 | 0.775 |", out)  # sqrt(1.0 x 0.6)
        self.assertIn("| static plan | 2 | 0 | 0.500 |", out)
        self.assertIn("| best label (upper bound) | 2 | 2 |", out)
        self.assertIn("| records, 2 nearest | 2 | 2 |", out)  # A at batch 8, B at 48

    def test_an_empty_file_is_refused(self):
        code, _ = self.run_main(label_rules, ["label_rules.py", self.write("rows.jsonl", "")])
        self.assertIn("has no shapes", code)


if __name__ == "__main__":
    unittest.main()
