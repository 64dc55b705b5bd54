"""Tests of experiments/policy_accuracy/threads_probe.py (a campaign's labels measured at every thread count at the
suggested shapes, appended to a copy of its database), with a stand-in crmap."""
import json
import os
import stat
import unittest
from unittest import mock

from script_test_support import ScriptTest, compare_result  # first: puts the scripts on the import path

import threads_probe  # noqa: E402

DEFAULT = "fuse.fc1=none;weights=stored;threads=2"
LABEL_1 = "fuse.fc1=bias+relu;weights=packed;threads=1"
LABEL_2 = "fuse.fc1=bias;weights=packed;threads=2"

# `train` writes its --out; `export`, `space` and `suggest` print what the test set; `compare` writes one result per
# --config (the first the anchor) and logs its arguments.
PROBE_CRMAP = """#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
if args[0] == "train":
    open(args[args.index("--out") + 1], "w").close()
elif args[0] == "export":
    print(json.dumps({"table": [{"config": c} for c in os.environ["FAKE_TABLE"].split("|")]}))
elif args[0] == "space":
    knobs = [] if os.environ.get("FAKE_NO_THREADS") else [{"name": "threads", "values": ["1", "2"]}]
    print(json.dumps({"default": os.environ["FAKE_DEFAULT"], "knobs": knobs}))
elif args[0] == "suggest":
    print(json.dumps({"suggested": [{"dims": {"batch": 1}}, {"dims": {"batch": 256}}]}))
elif args[0] == "compare":
    configs = [args[i + 1] for i, a in enumerate(args) if a == "--config"]
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(os.environ.get("ONEDNN_MAX_CPU_ISA", "-") + " " + " ".join(args) + "\\n")
    if "batch=256" in args and os.environ.get("FAKE_COMPARE_FAILS"):
        sys.stderr.write("the plan failed to compile")
        sys.exit(1)
    results = [{"status": "ok", "config": c, "dims": {}, "agent": "manual", "campaign": "",
                "ratio_to_anchor": {"median": 1.0 if i == 0 else (0.5 if "threads=2" in c else 0.8)}}
               for i, c in enumerate(configs)]
    with open(args[args.index("--out") + 1], "w") as f:
        json.dump({"results": results}, f)
"""


class HelperTest(unittest.TestCase):
    def test_with_knob_sets_one_knob_and_keeps_the_rest_in_order(self):
        self.assertEqual(threads_probe.with_knob(LABEL_1, "threads", "2"), "fuse.fc1=bias+relu;weights=packed;threads=2")
        self.assertEqual(threads_probe.with_knob(LABEL_1, "weights", "stored"),
                         "fuse.fc1=bias+relu;weights=stored;threads=1")

    def test_every_label_at_every_thread_count_once_without_the_default(self):
        configs = threads_probe.probe_configs([LABEL_1, LABEL_2, LABEL_1, DEFAULT], ["1", "2"], DEFAULT)
        self.assertEqual(configs, [LABEL_1, "fuse.fc1=bias+relu;weights=packed;threads=2",
                                   "fuse.fc1=bias;weights=packed;threads=1", LABEL_2,
                                   "fuse.fc1=none;weights=stored;threads=1"])

    def test_the_first_result_is_the_anchor_the_rest_probes(self):
        records = threads_probe.probe_records([compare_result(1.0), compare_result(0.5)])
        self.assertEqual([(r["agent"], r["campaign"]) for r in records],
                         [("anchor", "threads-probe"), ("probe", "threads-probe")])


class ProbeFolderTest(ScriptTest):
    def setUp(self):
        super().setUp()
        self.crmap = self.write("bin/crmap", PROBE_CRMAP)
        os.chmod(self.crmap, os.stat(self.crmap).st_mode | stat.S_IXUSR)
        self.folder = os.path.join(self.dir, "campaign")
        self.campaign = [{"status": "ok", "dims": {"batch": 16}, "config": LABEL_1}]
        self.write("campaign/dlrm_mlp.jsonl", self.campaign)
        self.write("campaign/version.txt", "environment: ONEDNN_MAX_CPU_ISA=AVX2\n")
        self.log = os.path.join(self.dir, "compare.log")
        self.env = {"FAKE_TABLE": f"{LABEL_1}|{LABEL_1}", "FAKE_DEFAULT": DEFAULT, "FAKE_LOG": self.log}

    def probe(self):
        with mock.patch.dict(os.environ, self.env), mock.patch.object(threads_probe, "ROOT", self.dir):
            return threads_probe.probe_folder(self.crmap, "dlrm_mlp", "dlrm_mlp_online", self.folder, 2, 10)

    def test_the_probed_database_is_the_campaign_then_the_probes_at_each_suggested_shape(self):
        line = self.probe()
        with open(os.path.join(self.folder, "dlrm_mlp.probed.jsonl")) as f:
            records = [json.loads(row) for row in f]
        self.assertEqual(records[0], self.campaign[0])  # the campaign's records first, unchanged
        self.assertEqual([r["agent"] for r in records[1:]], ["anchor", "probe", "probe"] * 2)
        self.assertEqual([r["config"] for r in records[1:4]],
                         [DEFAULT, LABEL_1, "fuse.fc1=bias+relu;weights=packed;threads=2"])
        self.assertIn("6 measurements added (2 probes + the anchor at 2 shapes)", line)
        self.assertIn("batch=256: fastest probe threads=2", line)
        with open(self.log) as f:
            compares = f.read().splitlines()
        self.assertEqual(len(compares), 2)
        self.assertIn("--dims batch=1 ", compares[0])
        self.assertIn("--rounds 10", compares[0])
        self.assertTrue(compares[0].startswith("AVX2 "))  # the folder's ISA (version.txt) reaches the measurement

    def test_a_failed_compare_writes_nothing_so_a_rerun_probes_again(self):
        self.env["FAKE_COMPARE_FAILS"] = "1"
        with mock.patch("sys.stderr"):
            line = self.probe()
        self.assertIn("compare at batch=256 failed; nothing written", line)
        self.assertEqual(sorted(os.listdir(self.folder)),
                         ["dlrm_mlp.jsonl", "dlrm_mlp.probe_base.policy", "version.txt"])  # no partial or temp file
        del self.env["FAKE_COMPARE_FAILS"]
        self.assertIn("6 measurements added", self.probe())

    def test_a_space_without_threads_is_named_and_nothing_measured(self):
        self.env["FAKE_NO_THREADS"] = "1"
        self.assertIn("dlrm_mlp's space has no threads knob", self.probe())
        self.assertFalse(os.path.exists(self.log))

    def test_an_existing_probed_database_is_reused_and_nothing_is_measured(self):
        self.probe()
        os.remove(self.log)
        self.assertIn("exists, reused", self.probe())
        self.assertFalse(os.path.exists(self.log))

    def test_a_folder_without_the_workloads_database_is_skipped(self):
        os.remove(os.path.join(self.folder, "dlrm_mlp.jsonl"))
        self.assertIsNone(self.probe())


class MainTest(ScriptTest):
    def test_each_folder_is_probed_then_both_databases_checked_for_the_workload_alone(self):
        with mock.patch.object(threads_probe, "probe_folder", return_value="probed") as probe, \
                mock.patch.object(threads_probe, "check") as check:
            code, out, _ = self.call_main(threads_probe, ["--count", "3", "--out", "/p", "c", "w", "d", "f1", "f2"])
        self.assertEqual(code, 0)
        self.assertEqual([call.args for call in probe.call_args_list], [("c", "w", "d", "f1", 3, 10),
                                                                         ("c", "w", "d", "f2", 3, 10)])
        check.assert_called_once_with([("A", "c", []), ("B", "c", [], ".probed")], "c", ["f1", "f2"], 30, "/p", ["w"])
        self.assertEqual(out.splitlines()[:2], ["probed", "probed"])

    def test_a_bad_count_or_too_few_arguments_is_refused_with_the_usage(self):
        for argv in (["--count", "0", "c", "w", "d", "f"], ["c", "w", "d"]):
            with self.assertRaises(SystemExit) as exit_:
                self.call_main(threads_probe, argv)
            self.assertIn("usage: threads_probe.py", str(exit_.exception.code))


if __name__ == "__main__":
    unittest.main()
