#!/bin/bash
# Session 10, run c: the test binary of 77378df (with the weight-cache test) on the H200.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r
gunzip -k $B/merge_attn_tests.gz; chmod +x $B/merge_attn_tests; T=$B/merge_attn_tests
s=$(date +%s)
$T --gtest_brief=1 > /tmp/r/gtest-all-77378df.log 2>&1; echo "exit code $? ($(( $(date +%s) - s )) s)" >> /tmp/r/gtest-all-77378df.log
$T --gtest_filter='*WeightCache*' > /tmp/r/gtest-weightcache.log 2>&1; echo "exit code $?" >> /tmp/r/gtest-weightcache.log
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 $T --gtest_brief=1 --gtest_filter='MergeMany/Cuda*' > /tmp/r/racecheck-77378df.log 2>&1
echo "exit code $?" >> /tmp/r/racecheck-77378df.log
tail -n 3 /tmp/r/*.log
cd /tmp/r && tar czf $OUT/s10c.tgz *.log
