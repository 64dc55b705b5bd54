"""Moves committed tuning databases to the current fingerprints of the built-in workloads, when the only change to
a workload file since they were recorded is metadata that no measurement depends on (the accuracy budget, which
issue 8 changed from absolute to scaled error). Fingerprints hash the whole workload file, so that change made
every record of the old files "other fingerprints". This rewrites, for each record of a built-in workload whose
fingerprint is the one the file had at --from-commit: workload_fingerprint and space_fingerprint to today's (from
`crmap space --json`; the thread domain must match: run it on a host with the records' core count), and keeps
the old ones in "migrated_from". It refuses when the files differ in anything else, and leaves wrong_answer
records alone (their verdict was made under the old budget). Files are rewritten atomically.

usage: experiments/migrate_fingerprints.py --from-commit COMMIT FILE.jsonl[.gz]...
"""
import argparse
import gzip
import json
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
crmap = os.path.join(root, "build", "crmap")


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def fingerprint(text):  # as common/workload.cpp: FNV-1a 64 of the canonical JSON (sorted keys, no spaces)
    return fnv1a64(json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())


def mapping(commit, name, cores):
    old_text = subprocess.run(["git", "-C", root, "show", f"{commit}:datasets/workloads/{name}.json"],
                              capture_output=True, text=True, check=True).stdout
    new_text = open(os.path.join(root, "datasets", "workloads", f"{name}.json")).read()
    old, new = json.loads(old_text), json.loads(new_text)
    changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    if changed not in ([], ["accuracy_budget"]):
        sys.exit(f"{name}: the file changed in {changed} since {commit}, not only its accuracy budget: retune instead")
    space = json.loads(subprocess.run([crmap, "space", "--workload", name, "--json"], capture_output=True,
                                      text=True, check=True).stdout)
    threads = next(k for k in space["knobs"] if k["name"] == "threads")["values"]
    if str(cores) not in threads or threads[-1] != str(cores):
        sys.exit(f"{name}: records were measured on {cores} cores, this host's thread domain is {threads}")
    return fingerprint(old_text), space["workload_fingerprint"], space["space_fingerprint"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-commit", required=True)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for path in args.files:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            lines = f.read().splitlines()
        maps, moved, kept = {}, 0, 0
        out = []
        for line in lines:
            if not line.strip():
                continue
            r = json.loads(line)
            name = r["workload"]
            if name not in maps and os.path.exists(os.path.join(root, "datasets", "workloads", f"{name}.json")):
                maps[name] = mapping(args.from_commit, name, r.get("host", {}).get("cores", 0))
            m = maps.get(name)
            if m and r["workload_fingerprint"] == m[0] and r.get("status") != "wrong_answer":
                r["migrated_from"] = {"workload_fingerprint": r["workload_fingerprint"],
                                      "space_fingerprint": r["space_fingerprint"]}
                r["workload_fingerprint"], r["space_fingerprint"] = m[1], m[2]
                moved += 1
            else:
                kept += 1
            out.append(json.dumps(r, separators=(",", ":")))
        tmp = path + ".tmp"
        with opener(tmp, "wt") as f:
            f.write("\n".join(out) + "\n")
        os.replace(tmp, path)
        print(f"{path}: {moved} records moved to today's fingerprints, {kept} left as they were")


main()
