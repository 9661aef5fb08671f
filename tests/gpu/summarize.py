#!/usr/bin/env python3
"""Writes docs/validation.md from the logs tests/gpu/validate.sh left in a folder (verbatim lines)."""
import pathlib
import re
import sys

logs = pathlib.Path(sys.argv[1])
out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else pathlib.Path("docs/validation.md")


def grep(name, pattern):
    path = logs / name
    if not path.exists():
        return ["(no " + name + ")"]
    return [l.rstrip() for l in path.read_text(errors="replace").splitlines() if re.search(pattern, l)]


machine = (logs / "machine.txt").read_text().splitlines()
lines = ["# MergeAttn on an NVIDIA GPU: validation record", "",
         "Written by `tests/gpu/summarize.py` from the logs of `tests/gpu/validate.sh` (lines copied",
         f"verbatim from the run; the full logs are in {logs}/).", "",
         "## Machine", "", "```"]
lines += [l for l in machine if l.strip()][:4]
lines += grep("machine.txt", r"Driver Version|release|Compute Sanitizer|Version \d")
lines += grep("sanitizer-memcheck.log", r"^Kokkos \d")[:1]
lines += ["```", "", "## ctest (whole suite: Serial, OpenMP and Cuda, Cuda compared with OpenMP and Serial)",
          "", "```"]
lines += grep("ctest.log", r"tests passed|tests failed|Total Test time|Label Time|large +=")
lines += ["```", "", "## compute-sanitizer", ""]
for tool in ["memcheck", "initcheck", "synccheck", "racecheck"]:
    lines += ["### " + tool, "", "```"]
    lines += grep("sanitizer-" + tool + ".log", r"gtest filter|Google Test filter|PASSED|FAILED|ERROR SUMMARY|RACECHECK SUMMARY|exit code")
    lines += ["```", ""]
lines += ["racecheck inspects shared-memory accesses; the merge kernel uses none, so the in-place",
          "(aliasing) cases are covered by their results (`EveryAllowedAliasing`, run on Cuda in the",
          "suite above) and by memcheck/synccheck over the same tests.", ""]
out.write_text("\n".join(lines) + "\n")
print(out.read_text())
