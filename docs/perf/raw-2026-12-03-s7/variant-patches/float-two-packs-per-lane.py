#!/usr/bin/python3
"""Candidate for the next session (not adopted): about 2 packs per vector lane for every value
type (float too) in the 2-way merge, so that float head size 128 takes 16 lanes with the L2 row prefetch, as the
session 7 lane sweep measured best (102.1-102.8 % of copy against 97.6-97.9 %). Changes the
built-in shape of float (and double) head sizes ~96-288 only; head size 256 was not measured.
Usage: float-two-packs-per-lane.py <copy of include/MergeAttn/impl/MergeAttn_MergeKernel.hpp>"""
import sys

path = sys.argv[1]
src = open(path).read()
old = "  const int per_lane = value_size >= 4 ? 4 : 2;\n"
assert old in src, "choose_launch_shape changed: update the patch"
# N states keep 4 packs per lane for float: 16 lanes measured 67-75 % of copy against 85 % (session 3).
src = src.replace(old, "  const int per_lane = value_size >= 4 && num_states != 2 ? 4 : 2;\n")
open(path, "w").write(src)
