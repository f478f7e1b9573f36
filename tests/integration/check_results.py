#!/usr/bin/python3
"""Checks a results file: the JSON Schema, internal consistency, and that a reader written for
hyperfine's --export-json (command, times, mean, stddev, median, min, max, user, system, exit_codes)
accepts it.

usage: check_results.py FILE [--expect-mechanisms a,b] [--require-run a,b] [--incomplete]
"""
import argparse
import json
import math
import os
import statistics
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "results", "schema.json")


def fail(msg):
    print(f"check_results: {msg}", file=sys.stderr)
    sys.exit(1)


def read_like_hyperfine(doc):
    """What hyperfine's own plotting scripts do with an export: every result has a command and
    numeric times, and the summary numbers are plain floats."""
    for r in doc["results"]:
        label = r["command"]
        times = [float(t) for t in r["times"]]
        if r["skipped"] or r["n"] == 0:
            # Nothing succeeded: the summary numbers are null, as documented.
            continue
        for key in ("mean", "stddev", "median", "min", "max", "user", "system"):
            if not isinstance(r[key], (int, float)):
                fail(f"{label}: {key} is not a number for a result that ran")
        if len(r["exit_codes"]) != len(times):
            fail(f"{label}: exit_codes and times differ in length")


def check_consistency(doc):
    for r in doc["results"]:
        name = f"{r['mechanism']} x {r['case']}"
        if r["skipped"]:
            if not r["reason"]:
                fail(f"{name}: skipped without a reason")
            continue
        if len(r["times"]) != r["runs"]:
            fail(f"{name}: {len(r['times'])} times but runs = {r['runs']}")
        if r["n"] + r["failed"] != r["runs"]:
            fail(f"{name}: n + failed != runs")
        if len(r["failures"]) != r["failed"]:
            fail(f"{name}: failed = {r['failed']} but {len(r['failures'])} failures listed")
        bad = {f["index"] for f in r["failures"]}
        ok = [t for i, t in enumerate(r["times"]) if i not in bad]
        if ok:
            if not math.isclose(statistics.median(ok), r["median"], rel_tol=1e-6):
                fail(f"{name}: median {r['median']} is not the median of the successful times")
            if not (r["min"] <= r["median"] <= r["max"]):
                fail(f"{name}: median outside min..max")
            lo, hi = r["median_ci"]
            if not (lo <= r["median"] <= hi):
                fail(f"{name}: median outside its confidence interval")
        if not r["argv"]:
            fail(f"{name}: no argv recorded")
        if r["mechanism"] == "process" and r["ratio"] is not None:
            if not math.isclose(r["ratio"], 1.0):
                fail(f"{name}: the baseline's ratio is {r['ratio']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--expect-mechanisms", default="")
    ap.add_argument("--require-run", default="", help="mechanisms that must have run without a failure")
    ap.add_argument("--incomplete", action="store_true", help="the run was interrupted")
    args = ap.parse_args()
    try:
        with open(args.file) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{args.file}: {e}")
    with open(SCHEMA) as f:
        schema = json.load(f)
    try:
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as e:
        fail(f"{args.file}: schema: {e.message} at {list(e.absolute_path)}")
    read_like_hyperfine(doc)
    check_consistency(doc)
    if doc["complete"] == args.incomplete:
        fail(f"complete is {doc['complete']}")
    seen = {r["mechanism"] for r in doc["results"]}
    for m in filter(None, args.expect_mechanisms.split(",")):
        if m not in seen:
            fail(f"mechanism {m} missing from results")
    for m in filter(None, args.require_run.split(",")):
        rs = [r for r in doc["results"] if r["mechanism"] == m]
        if not rs or any(r["skipped"] or r["failed"] or r["n"] == 0 for r in rs):
            fail(f"mechanism {m} did not run cleanly: {[(r['skipped'], r['reason'], r['failures'][:1]) for r in rs]}")
    print(f"check_results: {args.file}: ok ({len(doc['results'])} results)")


if __name__ == "__main__":
    main()
