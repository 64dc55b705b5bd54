"""Reading the JSON files the experiments write (train reports, evaluations), for the scripts that tabulate them.

load_json: the file's JSON, or ValueError naming the file when it is larger than the cap or not JSON (OSError as
open raises it, naming the file). load_json_or_exit: the same, ending the script with that message instead.
load_text: a small text file's lines (a results folder's version.txt, protocol.txt, budgets.txt), ValueError naming
it when larger than its cap; load_text_or_exit: the same, ending the script with that message.
files_under: the files under a folder, any depth, whose name passes a test (e.g. every *_evaluate.json).
read_structured: a reader's result, a file of the wrong structure (a missing key, a wrong type) raised as ValueError
naming the file, so a script catches OSError and ValueError alone and prints the message.
"""
import json
import os
import sys

MAX_BYTES = 64 << 20  # a train report or evaluation of this project is well under 1 MiB
MAX_TEXT_BYTES = 1 << 20  # version.txt and protocol.txt are a few lines


def _read_capped(path, max_bytes):
    with open(path, errors="replace") as f:
        text = f.read(max_bytes + 1)  # bounded whatever the file is (a FIFO reports no size)
    if len(text) > max_bytes:
        raise ValueError(f"{path} is larger than {max_bytes} bytes")
    return text


def load_json(path, max_bytes=MAX_BYTES):
    try:
        return json.loads(_read_capped(path, max_bytes))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error})") from None


def load_json_or_exit(path, max_bytes=MAX_BYTES):
    try:
        return load_json(path, max_bytes)
    except ValueError as error:
        sys.exit(str(error))


def files_under(root, name_matches):
    found = []
    for folder, _, files in os.walk(root):
        found += [os.path.join(folder, name) for name in files if name_matches(name)]
    return sorted(found)


def read_structured(path, read, what="an evaluation crmap wrote"):
    try:
        return read(path)
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path}: not {what} ({error!r})") from None


def load_text(path, max_bytes=MAX_TEXT_BYTES):
    return _read_capped(path, max_bytes).splitlines()


def load_text_or_exit(path, max_bytes=MAX_TEXT_BYTES):
    try:
        return load_text(path, max_bytes)
    except ValueError as error:
        sys.exit(str(error))
