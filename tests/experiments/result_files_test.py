"""Tests of experiments/policy_accuracy/result_files.py."""
import unittest

from script_test_support import ScriptTest  # first: puts the scripts on the import path

from result_files import files_under, load_json, load_text, read_structured  # noqa: E402


class LoadJsonTest(ScriptTest):
    def test_the_files_json(self):
        self.assertEqual(load_json(self.write("f/r.json", {"shapes": [1]})), {"shapes": [1]})

    def test_a_truncated_or_too_large_file_is_named(self):
        path = self.write("f/r.json", '{"shapes": [1')
        with self.assertRaisesRegex(ValueError, r"f/r\.json: not JSON"):
            load_json(path)
        path = self.write("f/big.json", {"shapes": list(range(100))})
        with self.assertRaisesRegex(ValueError, r"f/big\.json is larger than 100 bytes"):
            load_json(path, max_bytes=100)


class LoadTextTest(ScriptTest):
    def test_the_files_lines_or_its_name_when_too_large(self):
        path = self.write("f/version.txt", "crmap 0.1.0\nenvironment: ONEDNN_MAX_CPU_ISA=AVX2\n")
        self.assertEqual(load_text(path), ["crmap 0.1.0", "environment: ONEDNN_MAX_CPU_ISA=AVX2"])
        with self.assertRaisesRegex(ValueError, r"f/version\.txt is larger than 10 bytes"):
            load_text(path, max_bytes=10)


class FilesUnderTest(ScriptTest):
    def test_matching_files_at_any_depth_sorted(self):
        b = self.write("x/b_seed2/w_evaluate.json", {})
        a = self.write("x/b_seed1/deeper/w_evaluate.json", {})
        self.write("x/b_seed1/w_train.json", {})
        self.assertEqual(files_under(f"{self.dir}/x", lambda name: name.endswith("_evaluate.json")), [a, b])
        self.assertEqual(files_under(f"{self.dir}/absent", lambda name: True), [])


class ReadStructuredTest(ScriptTest):
    def test_the_readers_result_or_a_wrong_structure_named(self):
        path = self.write("w_evaluate.json", {"held_out": 8})
        self.assertEqual(read_structured(path, lambda p: load_json(p)["held_out"]), 8)
        with self.assertRaisesRegex(ValueError, r"w_evaluate\.json: not an evaluation crmap wrote \(KeyError"):
            read_structured(path, lambda p: load_json(p)["shapes"])
        with self.assertRaisesRegex(ValueError, r"w_evaluate\.json: not a train report \(TypeError"):
            read_structured(path, lambda p: load_json(p)["held_out"]["x"], what="a train report")
        with self.assertRaises(OSError):  # not a structure error: passes through, naming the file
            read_structured(f"{self.dir}/absent.json", load_json)


if __name__ == "__main__":
    unittest.main()
