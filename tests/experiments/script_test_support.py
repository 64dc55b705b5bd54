"""What the experiment scripts' tests share: the scripts on the import path, folders of stored results written
from dicts, and a stand-in crmap for the scripts that run it (a fake behind the one interface they use: a
command line whose `compare --out FILE` writes FILE)."""
import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "experiments", "policy_accuracy")
sys.path.insert(0, SCRIPTS)

# The stand-in crmap: `compare` writes $FAKE_COMPARE (the results list, as JSON) to --out and exits
# $FAKE_EXIT (0 unless set), printing $FAKE_STDERR; every other command prints $FAKE_STDOUT.
FAKE_CRMAP = """#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
if os.environ.get("FAKE_EXIT", "0") != "0":
    sys.stderr.write(os.environ.get("FAKE_STDERR", "failed"))
    sys.exit(int(os.environ["FAKE_EXIT"]))
if args[:1] == ["compare"]:
    with open(args[args.index("--out") + 1], "w") as f:
        json.dump({"results": json.loads(os.environ["FAKE_COMPARE"])}, f)
else:
    sys.stdout.write(os.environ.get("FAKE_STDOUT", ""))
"""


class ScriptTest(unittest.TestCase):
    """A test case with a scratch folder (self.dir) removed afterwards."""

    def setUp(self):
        self._scratch = tempfile.TemporaryDirectory()
        self.dir = self._scratch.name

    def tearDown(self):
        self._scratch.cleanup()

    def write(self, relative, content):
        """Writes `content` (a str as is, a list as JSON lines, anything else as JSON) under self.dir."""
        path = os.path.join(self.dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            if isinstance(content, str):
                f.write(content)
            elif isinstance(content, list):
                f.write("".join(json.dumps(item) + "\n" for item in content))
            else:
                json.dump(content, f)
        return path

    def fake_crmap(self):
        path = self.write("bin/crmap", FAKE_CRMAP)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def call_main(self, module, argv):
        """Runs module.main(argv) (the scripts that take their arguments); returns (exit code, stdout, stderr)."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = module.main(argv)
        return code, out.getvalue(), err.getvalue()

    def run_main(self, module, argv):
        """Runs module.main() with sys.argv = argv; returns (exit code or None, stdout)."""
        out, saved = io.StringIO(), sys.argv
        sys.argv = argv
        try:
            with contextlib.redirect_stdout(out):
                try:
                    code = module.main()
                except SystemExit as exit_:
                    code = exit_.code
        finally:
            sys.argv = saved
        return code, out.getvalue()


def record(dims, config, ratio, status="ok"):
    """A tuning database line: `config` measured at `dims` at `ratio` of the anchor's latency."""
    return {"status": status, "dims": dims, "config": config, "ratio_to_anchor": {"median": ratio}}


def compare_result(ratio=None, low=None, high=None, status="ok"):
    """One entry of `crmap compare`'s results: the config's latency over the anchor's."""
    result = {"status": status}
    if ratio is not None:
        result["ratio_to_anchor"] = {"median": ratio, **({"median_low": low, "median_high": high} if low else {})}
    return result
