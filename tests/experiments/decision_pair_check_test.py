"""Tests of experiments/policy_accuracy/decision_pair_check.py (two trainings measured where they decide
differently), with stand-in crmaps that answer by their own name."""
import contextlib
import io
import json
import os
import stat
import unittest
from unittest import mock

from script_test_support import ScriptTest, compare_result  # first: puts the scripts on the import path

import decision_pair_check  # noqa: E402

# A stand-in crmap named NAME: `train` writes its --out and logs its arguments; `query` answers NAME's own config
# at the dims listed in $FAKE_DIFFER and "shared" elsewhere; `compare` writes $FAKE_COMPARE and logs its configs.
SIDE_CRMAP = """#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write("NAME " + " ".join(args) + "\\n")
if os.environ.get("FAKE_FAILS") in ("NAME " + args[0], "any " + args[0]):
    sys.stderr.write(args[0] + " says: corrupt input")
    sys.exit(2)
if args[0] == "train":
    open(args[args.index("--out") + 1], "w").close()
elif args[0] == "query":
    dims = args[args.index("--dims") + 1]
    differ = os.environ.get("FAKE_DIFFER", "").split(";")
    print(json.dumps({"config": "NAME-pick" if dims in differ else "shared"}))
elif args[0] == "compare":
    with open(args[args.index("--out") + 1], "w") as f:
        json.dump({"results": json.loads(os.environ["FAKE_COMPARE"])}, f)
"""

EVALUATION = {"shapes": [{"dims": {"batch": 2}, "oracle_config": "oracle"},
                         {"dims": {"batch": 8}, "oracle_config": "oracle"}]}


class PooledSummaryTest(unittest.TestCase):
    def test_counts_and_the_geometric_mean_of_second_over_first(self):
        pooled = [(0.90, (0.88, 0.92), 0.99, (0.97, 1.00)),  # second clearly ahead
                  (0.97, None, 0.93, None),                   # second behind, no intervals: not "clearly"
                  (1.00, (0.99, 1.01), 1.005, (0.99, 1.02))]  # level within 1%
        line = decision_pair_check.pooled_summary(pooled, ("A", "B"))
        self.assertIn("measured at 3: within 5% of the oracle A 2, B 2", line)
        self.assertIn("B/A geo-mean 1.020", line)  # (1.1 x 0.9588 x 1.005) ** (1/3)
        self.assertIn("B ahead by more than 1% at 1, behind at 1", line)
        self.assertIn("clearly (intervals apart) ahead at 1, behind at 0", line)



class CheckTest(ScriptTest):
    def setUp(self):
        super().setUp()
        patch = mock.patch.object(decision_pair_check, "ROOT", self.dir)  # bert_ffn is a built-in: no file needed
        patch.start()
        self.addCleanup(patch.stop)
        self.log = os.path.join(self.dir, "calls.log")
        self.folder = os.path.join(self.dir, "results", "campaign")
        self.write("results/campaign/bert_ffn.jsonl", [])
        self.write("results/campaign/bert_ffn_evaluate.json", EVALUATION)
        self.write("results/campaign/version.txt", "environment: ONEDNN_MAX_CPU_ISA=AVX2\n")
        self.crmaps = {}
        for name in ("A", "B"):
            path = self.write(f"bin/crmap_{name}", SIDE_CRMAP.replace("NAME", name))
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
            self.crmaps[name] = path

    def run_check(self, sides=None, workloads=None, **env):
        environment = {"FAKE_LOG": self.log, "FAKE_DIFFER": "batch=2",
                       "FAKE_COMPARE": json.dumps([compare_result(1.0), compare_result(1 / 0.9, 1 / 0.92, 1 / 0.88),
                                                   compare_result(1 / 0.99, 1 / 1.0, 1 / 0.97)]), **env}
        sides = sides or [("A", self.crmaps["A"], []), ("B", self.crmaps["B"], ["--incumbent", "neighbours"])]
        out, self.err = io.StringIO(), io.StringIO()
        with mock.patch.dict(os.environ, environment), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(self.err):
            decision_pair_check.check(sides, self.crmaps["B"], [self.folder], 30, os.path.join(self.dir, "policies"),
                                      workloads)
        with open(self.log) as f:
            return out.getvalue(), f.read().splitlines()

    def test_measures_only_where_the_sides_decide_differently(self):
        out, calls = self.run_check()
        self.assertIn("| results/campaign | bert_ffn | 2 | 1 | batch=2: 0.900 [0.880, 0.920] → 0.990 [0.970, 1.000] |",
                      out)
        compares = [call for call in calls if call.split()[1] == "compare"]
        self.assertEqual(len(compares), 1)  # batch 8: both answered "shared", nothing measured
        self.assertIn("--config oracle --config A-pick --config B-pick", compares[0])
        self.assertTrue(compares[0].startswith("B "))  # the measuring crmap
        self.assertIn("2 held-out shapes, decided differently and measured at 1", out)

    def test_each_side_trains_and_decides_with_its_own_crmap_and_arguments(self):
        _, calls = self.run_check()
        trains = sorted(call for call in calls if call.split()[1] == "train")
        self.assertEqual(len(trains), 2)
        self.assertNotIn("--incumbent", trains[0])  # A's
        self.assertIn("--incumbent neighbours", trains[1])  # B's
        self.assertIn("campaign_bert_ffn.A.policy", trains[0])
        queries = [call for call in calls if call.split()[1] == "query"]
        self.assertTrue(all((".A.policy" in q) == q.startswith("A ") for q in queries))

    def test_kept_policies_are_not_trained_again(self):
        self.run_check()
        os.remove(self.log)
        _, calls = self.run_check()
        self.assertFalse([call for call in calls if call.split()[1] == "train"])

    def test_a_failed_train_is_named_with_crmaps_message_and_the_check_goes_on(self):
        out, calls = self.run_check(FAKE_FAILS="B train")
        self.assertIn("| results/campaign | bert_ffn | train failed | | |", out)
        self.assertIn("train says: corrupt input", self.err.getvalue())
        self.assertFalse([call for call in calls if call.split()[1] in ("query", "compare")])
        self.assertIn("0 held-out shapes; no measured shape where the rules decide differently", out)

    def test_a_failed_query_is_named_per_shape(self):
        out, calls = self.run_check(FAKE_FAILS="A query")
        self.assertIn("| results/campaign | bert_ffn | 2 | 0 | batch=2: query failed; batch=8: query failed |", out)
        self.assertIn("query says: corrupt input", self.err.getvalue())

    def test_a_failed_compare_is_named_and_the_shape_left_out_of_the_pooled_line(self):
        out, _ = self.run_check(FAKE_FAILS="any compare")
        self.assertIn("| 2 | 1 | batch=2: not measured (compare failed) |", out)
        self.assertIn("no measured shape where the rules decide differently", out)


    def test_a_side_with_a_suffix_trains_from_that_database_which_is_no_workload_of_its_own(self):
        self.write("results/campaign/bert_ffn.probed.jsonl", [])
        out, calls = self.run_check(sides=[("A", self.crmaps["A"], []), ("B", self.crmaps["B"], [], ".probed")])
        trains = sorted(call for call in calls if call.split()[1] == "train")
        self.assertIn("campaign/bert_ffn.jsonl ", trains[0])
        self.assertIn("campaign/bert_ffn.probed.jsonl ", trains[1])
        self.assertNotIn("bert_ffn.probed |", out)
        self.assertEqual(len(trains), 2)

    def test_workloads_limit_the_check(self):
        self.write("results/campaign/dlrm_mlp.jsonl", [])
        self.write("results/campaign/dlrm_mlp_evaluate.json", EVALUATION)
        out, _ = self.run_check()
        self.assertIn("| dlrm_mlp |", out)
        out, _ = self.run_check(workloads=["bert_ffn"])
        self.assertNotIn("| dlrm_mlp |", out)
        self.assertIn("| bert_ffn |", out)


class EvaluationPathTest(ScriptTest):
    def test_an_a_side_reads_its_b_siblings_evaluation(self):
        path = self.write("ab/b_seed3/w_evaluate.json", EVALUATION)
        self.assertEqual(decision_pair_check.evaluation_path(os.path.join(self.dir, "ab", "a_seed3"), "w"), path)
        self.assertIsNone(decision_pair_check.evaluation_path(os.path.join(self.dir, "ab", "a_seed4"), "w"))


if __name__ == "__main__":
    unittest.main()
