"""Tests of experiments/policy_accuracy/tuned_answers_check.py's parts the other scripts share: its option
parser, the folder's environment, and the reading of `crmap compare` (against a stand-in crmap)."""
import contextlib
import io
import json
import unittest

from script_test_support import ScriptTest, compare_result  # first: puts the scripts on the import path

from tuned_answers_check import folder_environment, measure, parse_options, speedups_over_anchor  # noqa: E402


class ParseOptionsTest(unittest.TestCase):
    def exit_message(self, args):
        with self.assertRaises(SystemExit) as exit_:
            parse_options(args, ("rounds", "out"), "usage")
        return str(exit_.exception.code)

    def test_leading_options_then_the_arguments(self):
        options, rest = parse_options(["--rounds", "12", "--out", "f", "crmap", "--rounds"], ("rounds", "out"), "")
        self.assertEqual(options, {"rounds": 12, "out": "f"})
        self.assertEqual(rest, ["crmap", "--rounds"])  # options end at the first argument

    def test_an_unknown_option_is_refused_naming_the_allowed(self):
        message = self.exit_message(["--round", "12", "crmap"])
        self.assertIn("unknown option --round (allowed: --rounds, --out)", message)
        self.assertTrue(message.endswith("usage"))

    def test_a_missing_or_bad_value_is_refused(self):
        self.assertIn("--out needs a value", self.exit_message(["--out"]))
        self.assertIn("--rounds needs a whole number >= 6", self.exit_message(["--rounds", "5", "c"]))
        self.assertIn("--rounds needs a whole number >= 6", self.exit_message(["--rounds", "ten", "c"]))


class FolderEnvironmentTest(ScriptTest):
    def test_the_environment_line_is_added_to_the_environment(self):
        self.write("f/version.txt", "crmap 0.1.0\nenvironment: ONEDNN_MAX_CPU_ISA=AVX2 OTHER=1 broken\n")
        env = folder_environment(f"{self.dir}/f")
        self.assertEqual((env["ONEDNN_MAX_CPU_ISA"], env["OTHER"]), ("AVX2", "1"))
        self.assertNotIn("broken", env)

    def test_a_folder_without_version_txt_is_refused(self):
        with self.assertRaises(SystemExit) as exit_:
            folder_environment(self.dir)
        self.assertIn("version.txt is missing", str(exit_.exception.code))

    def test_a_version_txt_beyond_its_cap_is_named(self):
        self.write("f/version.txt", "environment: " + "X=1 " * (1 << 18))
        with self.assertRaises(SystemExit) as exit_:
            folder_environment(f"{self.dir}/f")
        self.assertIn("version.txt is larger than", str(exit_.exception.code))


class SpeedupsOverAnchorTest(ScriptTest):
    def compare(self, results, fake_exit="0", configs=("B", "C")):
        env = {"FAKE_COMPARE": json.dumps(results), "FAKE_EXIT": fake_exit, "FAKE_STDERR": "no such workload",
               "PATH": "/usr/bin:/bin"}
        with contextlib.redirect_stderr(io.StringIO()) as err:
            outcome = speedups_over_anchor(self.fake_crmap(), self.dir, "bert_ffn", {"batch": 4}, "A", list(configs),
                                           30, env)
        return outcome, err.getvalue()

    def test_each_configs_speedup_over_the_anchor_and_its_interval(self):
        outcome, _ = self.compare([compare_result(1.0), compare_result(0.5, 0.4, 0.625), compare_result(1.25)])
        self.assertEqual(outcome, [(2.0, (1.6, 2.5)), (0.8, None)])  # an interval only where the build wrote one

    def test_what_failed_is_said(self):
        self.assertEqual(self.compare([compare_result(status="failed"), compare_result(1.0),
                                       compare_result(1.0)])[0], "the anchor failed")
        self.assertEqual(self.compare([compare_result(1.0), compare_result(1.0)])[0], "the anchor failed")  # short
        self.assertEqual(self.compare([compare_result(1.0), compare_result(1.0), compare_result(status="failed")])[0],
                         "config 1 failed")
        outcome, err = self.compare([], fake_exit="2")
        self.assertEqual(outcome, "compare failed")
        self.assertIn("no such workload", err)  # crmap's own message is passed on

    def test_measure_names_the_label_and_the_answer(self):
        env = {"FAKE_COMPARE": json.dumps([compare_result(status="failed"), compare_result(1.0)]), "PATH": "/usr/bin"}
        self.assertEqual(measure(self.fake_crmap(), self.dir, "bert_ffn", {"batch": 4}, "A", "B", 30, env),
                         "the label failed")
        env["FAKE_COMPARE"] = json.dumps([compare_result(1.0), compare_result(status="failed")])
        self.assertEqual(measure(self.fake_crmap(), self.dir, "bert_ffn", {"batch": 4}, "A", "B", 30, env),
                         "the answer failed")
        env["FAKE_COMPARE"] = json.dumps([compare_result(1.0), compare_result(0.8)])
        self.assertEqual(measure(self.fake_crmap(), self.dir, "bert_ffn", {"batch": 4}, "A", "B", 30, env),
                         (1.25, None))


if __name__ == "__main__":
    unittest.main()
