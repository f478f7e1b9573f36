#!/usr/bin/python3
"""Writes a synthetic, schema-valid results file with known medians and noise, for testing
`sbxbench compare`, scripts/plot.py and scripts/report.py without measuring anything.

usage: make_results.py OUT.json [--seed N] [--n N] [--cv F] [--host H] [--date ISO]
                       [--mech NAME=MEDIAN_S[:FAMILY]]... [--shift NAME=FRACTION]...
                       [--skip NAME=REASON]... [--fail-all NAME] [--lognormal]

Each mechanism gets one result for the case "true"; --shift multiplies its median.
"""
import argparse
import json
import math
import random
import statistics


def percentile(sorted_xs, q):
    pos = q * (len(sorted_xs) - 1)
    i = int(pos)
    if i + 1 >= len(sorted_xs):
        return sorted_xs[-1]
    return sorted_xs[i] + (pos - i) * (sorted_xs[i + 1] - sorted_xs[i])


def stats(times):
    ok = sorted(times)
    med = statistics.median(ok)
    mean = statistics.fmean(ok)
    sd = statistics.stdev(ok) if len(ok) > 1 else 0.0
    mad = statistics.median([abs(t - med) for t in ok])
    return {
        "mean": mean, "stddev": sd, "median": med, "min": ok[0], "max": ok[-1],
        "p5": percentile(ok, 0.05), "p95": percentile(ok, 0.95), "p99": percentile(ok, 0.99),
        "mad": mad, "outliers": sum(abs(t - med) > 10 * 1.4826 * mad for t in ok),
        "cv": sd / mean if mean else 0.0, "median_ci": [ok[int(len(ok) * 0.45)], ok[int(len(ok) * 0.55)]],
        "high_cv": sd / mean > 0.15 if mean else False, "user": mean / 2, "system": mean / 4,
    }


def null_stats():
    keys = ["mean", "stddev", "median", "min", "max", "p5", "p95", "p99", "mad", "outliers", "cv",
            "median_ci", "user", "system"]
    d = {k: None for k in keys}
    d["high_cv"] = False
    return d


def result(name, family, times, failed_idx=(), skipped=None):
    r = {
        "command": f"{name} true", "mechanism": name, "family": family, "workload": "true",
        "case": "true", "params": {}, "argv": None if skipped else [name, "true"],
        "skipped": skipped is not None, "reason": skipped, "runs": len(times),
        "n": len(times) - len(failed_idx), "failed": len(failed_idx),
        "failures": [{"index": i, "reason": "exit status 1"} for i in failed_idx],
        "times": times, "exit_codes": [1 if i in failed_idx else 0 for i in range(len(times))],
        "user_times": [t / 2 for t in times], "system_times": [t / 4 for t in times],
        "max_rss_kb": [1000] * len(times), "digest": None, "baseline": "process",
        "ratio": None, "ratio_ci": None,
    }
    ok = [t for i, t in enumerate(times) if i not in failed_idx]
    r.update(stats(ok) if ok else null_stats())
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--cv", type=float, default=0.05)
    ap.add_argument("--host", default="testhost")
    ap.add_argument("--kernel", default="6.1.0")
    ap.add_argument("--cpu", default="Test CPU")
    ap.add_argument("--date", default="2026-11-30T01:00:00Z")
    ap.add_argument("--mech", action="append", default=[])
    ap.add_argument("--shift", action="append", default=[])
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--fail-all", action="append", default=[])
    ap.add_argument("--lognormal", action="store_true")
    ap.add_argument("--incomplete", action="store_true")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    mechs = args.mech or ["process=0.0006:process", "bwrap=0.0025:namespace"]
    shifts = dict(s.split("=") for s in args.shift)
    skips = dict(s.split("=", 1) for s in args.skip)
    results = []
    for spec in mechs:
        name, rest = spec.split("=")
        median, _, family = rest.partition(":")
        family = family or ("process" if name == "process" else "namespace")
        if name in skips:
            results.append(result(name, family, [], skipped=skips[name]))
            continue
        m = float(median) * (1 + float(shifts.get(name, 0)))
        if args.lognormal:
            times = [m * math.exp(args.cv * rng.gauss(0, 1)) for _ in range(args.n)]
        else:
            times = [max(1e-7, m * (1 + args.cv * rng.gauss(0, 1))) for _ in range(args.n)]
        failed = tuple(range(len(times))) if name in args.fail_all else ()
        results.append(result(name, family, times, failed))
    process = next((r for r in results if r["mechanism"] == "process" and r["n"]), None)
    for r in results:
        if process and r["n"]:
            r["ratio"] = r["median"] / process["median"]
            r["ratio_ci"] = [r["ratio"] * 0.97, r["ratio"] * 1.03]
        else:
            r["baseline"] = None
    doc = {
        "schema": "sbxbench-results", "schema_version": 1, "complete": not args.incomplete,
        "meta": {
            "sbxbench_version": "0.1.0", "git_commit": "synthetic", "date_utc": args.date,
            "duration_s": 1.0, "interrupted": args.incomplete,
            "host": {"host": args.host, "kernel": args.kernel, "kernel_version": "#1",
                     "arch": "x86_64", "os": "Debian GNU/Linux 12 (bookworm)",
                     "cpu_model": args.cpu, "cpu_flags": "avx2", "cores": 2,
                     "memory_kb": 1 << 20, "uid": 0, "time_namespaces": True,
                     "tools": {"bwrap": {"path": "/usr/bin/bwrap", "version": "bubblewrap 0.8.0"}}},
            "config": {"mechanisms": [s.split("=")[0] for s in mechs], "workloads": ["true"],
                       "runs": args.n, "min_time": None, "warmup": 0, "order": "interleaved",
                       "pin": None, "timeout": 60.0, "seed": 1},
            "statistics": {"interval": "synthetic"},
        },
        "results": results,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
