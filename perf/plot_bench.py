#!/usr/bin/python3
"""Turns merge_attn_bench's JSON into a PNG (GB/s against bytes moved, per value type, with the
copy roofline measured in the same run) and a markdown table (2-way merges; N-way merges in a
second table).

    /usr/bin/python3 perf/plot_bench.py bench.json out_prefix   # writes out_prefix.png and .md

Needs Debian's python3-matplotlib (apt-get install python3-matplotlib) for the PNG only.
"""
import json
import sys


def load(path):
    """The run's context, its 2-way rows ("merge/...") and its N-way rows ("nway/...")."""
    data = json.load(open(path))
    rows, nway = [], []
    for b in data["benchmarks"]:
        parts = b["name"].split("/")
        if b.get("run_type") == "aggregate":
            continue
        if parts[0] == "nway":
            tokens, heads, dim = (int(x) for x in parts[3].split("x"))
            nway.append({
                "type": parts[1], "states": int(parts[2][1:]), "tokens": tokens, "heads": heads,
                "dim": dim, "bytes": b["bytes"], "gbs": b["GB/s"], "copy": b["copy_GB/s"],
                "pct": b["pct_of_copy"], "us": b["median_us"], "host_us": b.get("host_us"),
                "fold_us": b.get("fold_us"), "vs_fold": b.get("speedup_vs_fold"),
                "plan_vs_call": b.get("plan_vs_call"),
                "plan_kernel_vs_call": b.get("plan_kernel_vs_call"),
            })
            continue
        if parts[0] != "merge":
            continue
        tokens, heads, dim = (int(x) for x in parts[2].split("x"))
        rows.append({
            "type": parts[1], "tokens": tokens, "heads": heads, "dim": dim,
            "bytes": b["bytes"], "gbs": b["GB/s"], "copy": b["copy_GB/s"],
            "pct": b["pct_of_copy"], "us": b["median_us"], "vs_plain": b.get("vs_plain"),
            "host_us": b.get("host_us"), "plan_vs_plain": b.get("plan_vs_plain"),
            "plan_kernel_vs_plain": b.get("plan_kernel_vs_plain"),
        })
    return data["context"], rows, nway


def ratio(x):
    return "%.3f" % x if x else "–"


def table(rows):
    out = ["| type | tokens×heads×head_size | MB moved | median µs | host µs | GB/s | copy GB/s | % of copy | time / plain CUDA | plan / plain CUDA | kernel plan / plain CUDA |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        host = "%.1f" % r["host_us"] if r["host_us"] is not None else "–"  # older JSONs: none
        out.append("| %s | %d×%d×%d | %.2f | %.1f | %s | %.0f | %.0f | %.1f | %s | %s | %s |" % (
            r["type"], r["tokens"], r["heads"], r["dim"], r["bytes"] / 1e6, r["us"], host, r["gbs"],
            r["copy"], r["pct"], ratio(r["vs_plain"]), ratio(r["plan_vs_plain"]),
            ratio(r["plan_kernel_vs_plain"])))
    return "\n".join(out) + "\n"


def nway_table(rows):
    """N states merged in one pass: bytes = S reads + 1 write; speed-up over folding the same
    states with S - 1 two-way merges; plans (where the call is under 50 µs) against the call."""
    out = ["| type | states | tokens×heads×head_size | MB moved | median µs | host µs | GB/s | copy GB/s | % of copy | fold µs | × faster than fold | plan / call | kernel plan / call |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["type"], r["states"], r["tokens"])):
        host = "%.1f" % r["host_us"] if r["host_us"] is not None else "–"
        fold = "%.1f" % r["fold_us"] if r["fold_us"] is not None else "–"
        vs_fold = "%.2f" % r["vs_fold"] if r["vs_fold"] is not None else "–"
        out.append("| %s | %d | %d×%d×%d | %.2f | %.1f | %s | %.0f | %.0f | %.1f | %s | %s | %s | %s |" % (
            r["type"], r["states"], r["tokens"], r["heads"], r["dim"], r["bytes"] / 1e6, r["us"],
            host, r["gbs"], r["copy"], r["pct"], fold, vs_fold, ratio(r["plan_vs_call"]),
            ratio(r["plan_kernel_vs_call"])))
    return "\n".join(out) + "\n"


def describe(context):
    """The run's header lines: date and host, and what the bench recorded of the device it ran on
    (execution space, GPU, driver and CUDA versions; older JSON files have none of it)."""
    lines = ["Run %s on %s (%s CPUs listed by Google Benchmark)." % (
        context.get("date"), context.get("host_name"), context.get("num_cpus"))]
    if "mergeattn_execution_space" in context:
        lines.append("Execution space %s (concurrency %s), Kokkos %s, build type %s, grid '%s'." % (
            context["mergeattn_execution_space"], context.get("mergeattn_concurrency"),
            context.get("kokkos_version"), context.get("mergeattn_build_type"),
            context.get("mergeattn_grid")))
    if "gpu" in context:
        lines.append("GPU %s (%s multiprocessors, %s GiB), NVIDIA driver %s, CUDA driver API %s, "
                     "CUDA runtime %s." % (
                         context["gpu"], context.get("gpu_multiprocessors"),
                         context.get("gpu_memory_gib"), context.get("nvidia_driver"),
                         context.get("cuda_driver_api"), context.get("cuda_runtime")))
    return lines


def plot(context, rows, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    types = sorted({r["type"] for r in rows})
    fig, axes = plt.subplots(1, len(types), figsize=(6 * len(types), 4.5), sharey=True)
    if len(types) == 1:
        axes = [axes]
    for ax, t in zip(axes, types):
        rs = sorted((r for r in rows if r["type"] == t), key=lambda r: r["bytes"])
        ax.scatter([r["bytes"] for r in rs], [r["copy"] for r in rs], s=10, c="gray",
                   label="device copy, same bytes")
        ax.scatter([r["bytes"] for r in rs], [r["gbs"] for r in rs], s=12, label="merge_attn_states")
        ax.set_xscale("log")
        ax.set_xlabel("bytes moved per merge")
        ax.set_title(t)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("GB/s (bytes read + written / median time)")
    axes[0].legend(loc="upper left")
    where = context.get("gpu") or context.get("mergeattn_execution_space") or context.get("host_name")
    fig.suptitle("merge_attn_states on %s, %s" % (where, context.get("date")))
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    context, rows, nway = load(sys.argv[1])
    prefix = sys.argv[2]
    with open(prefix + ".md", "w") as f:
        f.write("\n\n".join(describe(context)) + "\n\n")
        f.write(table(rows))
        if nway:
            f.write("\nN states (`merge_attn_states` with states `[S][tokens][heads][head_size]`):"
                    "\n\n")
            f.write(nway_table(nway))
    if not rows:
        print("no 2-way entries: wrote only " + prefix + ".md")
        return
    try:
        plot(context, rows, prefix + ".png")
    except ImportError:
        print("matplotlib missing: wrote only " + prefix + ".md")


if __name__ == "__main__":
    main()
