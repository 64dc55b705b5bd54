"""Tests of experiments/policy_accuracy/probe_anchor_check.py (a probe-share campaign's database without the anchors
at its probed shapes, both trained and compared)."""
import json
import os
import unittest
from unittest import mock

from script_test_support import ScriptTest  # first: puts the scripts on the import path

import probe_anchor_check  # noqa: E402


def record(agent, batch, config="c"):
    return json.dumps({"agent": agent, "dims": {"batch": batch}, "config": config})


class WithoutProbeAnchorsTest(unittest.TestCase):
    def test_only_the_anchors_at_the_probed_shapes_are_left_out(self):
        lines = [record("anchor", 2), record("rl", 2), record("anchor", 256), record("probe", 256),
                 record("anchor", 300), ""]
        kept = probe_anchor_check.without_probe_anchors(lines, [{"batch": 256}])
        self.assertEqual(kept, [record("anchor", 2), record("rl", 2), record("probe", 256), record("anchor", 300), ""])

    def test_every_record_at_the_probed_shapes_when_asked(self):
        lines = [record("anchor", 2), record("anchor", 256), record("probe", 256), record("probe", 300)]
        kept = probe_anchor_check.without_probe_anchors(lines, [{"batch": 256}], every_record=True)
        self.assertEqual(kept, [record("anchor", 2), record("probe", 300)])


class MainTest(ScriptTest):
    def setUp(self):
        super().setUp()
        self.write("b_seed1/w.jsonl", "\n".join([record("anchor", 2), record("anchor", 256), record("probe", 256)]))
        self.write("b_seed1/w_tune.json", {"range_probe_shapes": [{"batch": 256}]})
        self.write("b_seed1/v.jsonl", record("anchor", 2))
        self.write("b_seed1/v_tune.json", {"range_probe_shapes": []})  # nothing probed: no second database

    def main(self, argv):
        return self.call_main(probe_anchor_check, argv)

    def checked(self, argv, database):
        """main(argv) with check stood in: its exit code, output, the lines of b_seed1/`database`, and the stand-in."""
        with mock.patch.object(probe_anchor_check, "check") as check:
            code, out, _ = self.main(argv)
        with open(os.path.join(self.dir, "b_seed1", database)) as f:
            return code, out, f.read().splitlines(), check

    def test_writes_the_database_without_the_probed_anchors_then_checks_both_sides(self):
        folder = os.path.join(self.dir, "b_seed1")
        code, out, lines, check = self.checked(["--rounds", "10", "crmap", folder], "w.no_probe_anchor.jsonl")
        self.assertEqual(code, 0)
        self.assertIn("w: 1 anchor records left out at 1 probed shapes", out)
        self.assertEqual(lines, [record("anchor", 2), record("probe", 256)])
        self.assertFalse(os.path.exists(os.path.join(folder, "v.no_probe_anchor.jsonl")))
        check.assert_called_once_with([("with anchor", "crmap", []), ("without", "crmap", [], ".no_probe_anchor")],
                                      "crmap", [folder], 10, None, ["w"])  # v probed nothing

    def test_without_shapes_writes_its_own_database_and_names_its_sides(self):
        folder = os.path.join(self.dir, "b_seed1")
        code, out, lines, check = self.checked(["--without", "shapes", "crmap", folder], "w.no_probed_shapes.jsonl")
        self.assertEqual(code, 0)
        self.assertIn("w: 2 records left out at 1 probed shapes", out)
        self.assertEqual(lines, [record("anchor", 2)])
        check.assert_called_once_with([("with probes", "crmap", []), ("without", "crmap", [], ".no_probed_shapes")],
                                      "crmap", [folder], 30, None, ["w"])
        with self.assertRaises(SystemExit):
            self.main(["--without", "everything", "crmap", folder])

    def test_an_existing_database_is_kept_and_a_malformed_tune_report_named(self):
        folder = os.path.join(self.dir, "b_seed1")
        self.write("b_seed1/w.no_probe_anchor.jsonl", "kept")
        with mock.patch.object(probe_anchor_check, "check"):
            code, out, _ = self.main(["crmap", folder])
        self.assertEqual(code, 0)
        self.assertNotIn("left out", out)
        with open(os.path.join(folder, "w.no_probe_anchor.jsonl")) as f:
            self.assertEqual(f.read(), "kept")
        self.write("b_seed1/w_tune.json", "{truncated")
        with mock.patch.object(probe_anchor_check, "check") as check, self.assertRaises(SystemExit) as exit_:
            self.main(["crmap", folder])
        self.assertIn("cannot read", str(exit_.exception.code))
        check.assert_not_called()


if __name__ == "__main__":
    unittest.main()
