#!/usr/bin/python3
"""Figures from sbxbench results files, as PNG and SVG.

usage: plot.py RESULTS.json [RESULTS.json ...] -o DIR [--sbxbench PATH] [--last N] [--scaling]

From the newest file (by meta.date_utc):
  total         the published figure: median time per mechanism, with its 95% interval
  overhead      the published figure: marginal cost over the plain process (median minus the
                process median), containers on their own scale
  distribution  every successful sample per mechanism
  scaling       when the run has the inputs workload: median time against the number of inputs
                on log-log axes, a line per mechanism and staging method, each labelled with its
                fitted cost per input (docs/scaling.md)
Given two or more files (a series of nightly runs):
  history       each median over time; nights that `sbxbench compare` judged a regression
                against the nights before them are marked
With --scaling, only the scaling figure, from every file given together (a scaling benchmark split
over several runs).

Skipped results (no times) and results whose every sample failed (n == 0) are shown as such,
never plotted as zero.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import matplotlib.ticker  # noqa: E402

SCHEMA = "sbxbench-results"
SCHEMA_VERSION = 1
FORMATS = ("png", "svg")
COLORS = {"process": "#4c72b0", "namespace": "#55a868", "container": "#c44e52"}


class BadInput(Exception):
    pass


def load(path):
    """A results file, checked enough to plot: one clear error otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror}")
    except ValueError as e:
        raise BadInput(f"{path}: not valid JSON: {e}")
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise BadInput(f"{path}: not an sbxbench results file")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise BadInput(f"{path}: schema_version {doc.get('schema_version')!r} is not supported: "
                       f"this script reads version {SCHEMA_VERSION}")
    if not isinstance(doc.get("results"), list) or not doc["results"]:
        raise BadInput(f"{path}: results: the array is empty")
    doc["_path"] = path
    return doc


def ok_times(r):
    failed = {f["index"] for f in r.get("failures") or []}
    return [t for i, t in enumerate(r.get("times") or []) if i not in failed]


def state(r):
    """'ok', 'skipped' or 'failed' (ran, but no sample succeeded)."""
    if r.get("skipped"):
        return "skipped"
    if not r.get("n") or r.get("median") is None:
        return "failed"
    return "ok"


def label(r, cases):
    return r["mechanism"] if len(cases) == 1 else f"{r['mechanism']} × {r['case']}"


def fmt_seconds(s):
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def save(fig, outdir, name):
    paths = []
    for ext in FORMATS:
        path = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(path, dpi=110, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def title_of(doc):
    host = doc["meta"].get("host", {})
    return f"{host.get('host', '?')}, {host.get('kernel', '?')}, {doc['meta'].get('date_utc', '?')}"


def mark_missing(ax, y, r):
    text = "skipped: " + (r.get("reason") or "") if state(r) == "skipped" else "every sample failed"
    ax.annotate(text[:70], (0, y), xycoords=("axes fraction", "data"), xytext=(4, 0),
                textcoords="offset points", va="center", fontsize=8, color="#8a6d00")


def plot_total(doc, outdir):
    results = doc["results"]
    cases = {r["case"] for r in results}
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(results) + 1.6))
    ys = list(range(len(results)))[::-1]
    for y, r in zip(ys, results):
        if state(r) != "ok":
            mark_missing(ax, y, r)
            continue
        med = r["median"]
        lo, hi = r.get("median_ci") or (med, med)
        # Points, not bars: a bar's length means nothing on a log axis.
        ax.errorbar(med, y, xerr=[[max(0, med - lo)], [max(0, hi - med)]], fmt="o",
                    color=COLORS.get(r["family"], "#777"), ecolor="black", capsize=3, markersize=7)
        ax.annotate(fmt_seconds(med), (max(med, hi), y), xytext=(8, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(ys, [label(r, cases) for r in results])
    if any(state(r) == "ok" for r in results):
        ax.set_xscale("log")
    ax.set_ylim(min(ys) - 0.7, max(ys) + 0.7)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.set_xlabel("median time, spawn to reap (log scale; whiskers: 95% interval)")
    ax.set_title(f"Total time per mechanism\n{title_of(doc)}", fontsize=10)
    return save(fig, outdir, "total")


def overheads(doc):
    """(result, overhead seconds, (lo, hi)) against the result's own baseline: the process median
    its ratio was taken against (a reproduce file has two, one per block), else the same case's
    process median."""
    process = {r["case"]: r for r in doc["results"] if r["mechanism"] == "process" and state(r) == "ok"}
    out = []
    for r in doc["results"]:
        if r["mechanism"] == "process":
            continue
        base = process.get(r["case"])
        if state(r) != "ok" or (base is None and not r.get("ratio")):
            out.append((r, None, None))
            continue
        pm = r["median"] / r["ratio"] if r.get("ratio") else base["median"]
        over = r["median"] - pm
        ci = r.get("ratio_ci")
        band = ((ci[0] - 1) * pm, (ci[1] - 1) * pm) if ci else (over, over)
        out.append((r, over, band))
    return out


def plot_overhead(doc, outdir):
    rows = overheads(doc)
    cases = {r["case"] for r in doc["results"]}
    groups = [("namespaces and the process family", [x for x in rows if x[0]["family"] != "container"]),
              ("containers (own scale)", [x for x in rows if x[0]["family"] == "container"])]
    groups = [g for g in groups if g[1]] or [("no mechanism besides process", [])]
    heights = [max(1, len(g[1])) for g in groups]
    fig, axes = plt.subplots(len(groups), 1, figsize=(8, 0.45 * sum(heights) + 1.2 * len(groups) + 0.6),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, (name, items) in zip(axes[:, 0], groups):
        ys = list(range(len(items)))[::-1]
        for y, (r, over, band) in zip(ys, items):
            if over is None:
                if state(r) == "ok":
                    ax.annotate("no process baseline for this case", (0, y),
                                xycoords=("axes fraction", "data"), xytext=(4, 0),
                                textcoords="offset points", va="center", fontsize=8)
                else:
                    mark_missing(ax, y, r)
                continue
            scale = 1e3
            ax.barh(y, over * scale, color=COLORS.get(r["family"], "#777"), height=0.6)
            ax.errorbar(over * scale, y, xerr=[[max(0, over - band[0]) * scale], [max(0, band[1] - over) * scale]],
                        fmt="none", ecolor="black", capsize=3)
            ax.annotate(f"{over * 1e3:+.3f} ms", (max(over, band[1]) * scale, y), xytext=(6, 0),
                        textcoords="offset points", va="center", fontsize=8)
        ax.set_yticks(ys, [label(r, cases) for r, _, _ in items])
        if ys:
            ax.set_ylim(min(ys) - 0.7, max(ys) + 0.7)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.margins(x=0.15)
        ax.set_xlabel("median − process median, ms (bars: 95% interval)")
        ax.set_title(name, fontsize=9, loc="left")
        if not items:
            ax.text(0.5, 0.5, "only the process baseline was measured", ha="center", va="center",
                    transform=ax.transAxes)
    fig.suptitle(f"Marginal overhead over the plain process\n{title_of(doc)}", fontsize=10)
    fig.tight_layout()
    return save(fig, outdir, "overhead")


def plot_distribution(doc, outdir):
    results = doc["results"]
    cases = {r["case"] for r in results}
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(results) + 2), 4.5))
    xs = list(range(1, len(results) + 1))
    data = [ok_times(r) if state(r) == "ok" else [] for r in results]
    present = [(x, d) for x, d in zip(xs, data) if d]
    if present:
        parts = ax.violinplot([d for _, d in present], positions=[x for x, _ in present],
                              showmedians=True, widths=0.8)
        for body, (x, _) in zip(parts["bodies"], present):
            body.set_facecolor(COLORS.get(results[x - 1]["family"], "#777"))
            body.set_alpha(0.6)
        ax.set_yscale("log")
    for x, r, d in zip(xs, results, data):
        if not d:
            ax.text(x, 0.5, "skipped" if state(r) == "skipped" else "all failed", rotation=90,
                    ha="center", va="center", transform=ax.get_xaxis_transform(), color="#8a6d00")
    ax.set_xticks(xs, [label(r, cases) for r in results], rotation=30, ha="right")
    ax.set_xlim(0.3, len(results) + 0.7)
    ax.set_ylabel("time per sample (log scale)")
    ax.set_title(f"Distribution of samples per mechanism\n{title_of(doc)}", fontsize=10)
    return save(fig, outdir, "distribution")


def regressions(docs, sbxbench, last):
    """{(date, mechanism, case)} judged regressed against up to `last` nights before, or None when
    sbxbench cannot be run."""
    if not sbxbench or not os.access(sbxbench, os.X_OK):
        return None
    found = set()
    for i in range(1, len(docs)):
        with tempfile.TemporaryDirectory(prefix="sbxbench-plot-") as tmp:
            for k, d in enumerate(docs[max(0, i - last):i]):
                os.symlink(os.path.abspath(d["_path"]), os.path.join(tmp, f"{k:04d}.json"))
            p = subprocess.run([sbxbench, "compare", "--format=json", tmp, docs[i]["_path"]],
                               capture_output=True, text=True)
            if p.returncode not in (0, 1):
                continue
            for pair in json.loads(p.stdout)["pairs"]:
                if pair["status"] == "regressed":
                    found.add((docs[i]["meta"]["date_utc"], pair["mechanism"], pair["case"]))
    return found


def plot_history(docs, outdir, sbxbench, last):
    marked = regressions(docs, sbxbench, last)
    series = {}
    for d in docs:
        for r in d["results"]:
            if state(r) == "ok":
                series.setdefault((r["mechanism"], r["case"]), []).append((d["meta"]["date_utc"], r["median"]))
    dates = sorted({d["meta"]["date_utc"] for d in docs})
    index = {date: i for i, date in enumerate(dates)}
    fig, ax = plt.subplots(figsize=(max(7, 0.5 * len(dates) + 4), 5))
    cases = {c for _, c in series}
    for (mech, case), points in sorted(series.items()):
        xs = [index[p[0]] for p in points]
        ys = [p[1] * 1e3 for p in points]
        line, = ax.plot(xs, ys, marker="o", markersize=3, label=mech if len(cases) == 1 else f"{mech} × {case}")
        bad = [(index[p[0]], p[1] * 1e3) for p in points if marked and (p[0], mech, case) in marked]
        if bad:
            ax.scatter([b[0] for b in bad], [b[1] for b in bad], s=90, facecolors="none",
                       edgecolors="red", linewidths=2, zorder=5)
    if not series:
        ax.text(0.5, 0.5, "no successful results in any night", ha="center", va="center",
                transform=ax.transAxes)
    else:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_xticks(range(len(dates)), [d[:10] + "\n" + d[11:16] for d in dates], fontsize=7)
    ax.set_ylabel("median, ms (log scale)")
    note = ("red circles: regressions by `sbxbench compare` against the nights before"
            if marked is not None else "regressions not marked: sbxbench binary not found")
    ax.set_title(f"Medians over time\n{note}", fontsize=10)
    return save(fig, outdir, "history")


def scaling_series(docs):
    """{(mechanism, staging): [(inputs, median, (lo, hi))]} from the inputs workload's results,
    sorted by count; a (mechanism, staging, count) measured in several files keeps the newest."""
    newest = {}
    for d in sorted(docs, key=lambda d: d["meta"].get("date_utc", "")):
        for r in d["results"]:
            p = r.get("params") or {}
            if r.get("workload") != "inputs" or "inputs" not in p or state(r) != "ok":
                continue
            med = r["median"]
            newest[(r["mechanism"], p.get("staging", "root"), p["inputs"])] = \
                (med, tuple(r.get("median_ci") or (med, med)))
    series = {}
    for (mech, staging, n), (med, ci) in newest.items():
        series.setdefault((mech, staging), []).append((n, med, ci))
    # The plain process stages nothing: its row under each method is the same baseline, drawn once.
    base = [k for k in series if k[0] == "process"]
    if base:
        keep = max(base, key=lambda k: len(series[k]))
        for k in base:
            if k != keep:
                del series[k]
    return {k: sorted(v) for k, v in series.items()}


def fit_per_input(points):
    """Least-squares t = a + b·N over the points: (a, b) in seconds and seconds per input, or None
    with fewer than two counts. Unweighted, so the largest counts decide b, as they should."""
    if len({n for n, _, _ in points}) < 2:
        return None
    ns = [float(n) for n, _, _ in points]
    ts = [t for _, t, _ in points]
    mn, mt = sum(ns) / len(ns), sum(ts) / len(ts)
    sxx = sum((n - mn) ** 2 for n in ns)
    b = sum((n - mn) * (t - mt) for n, t in zip(ns, ts)) / sxx
    return mt - b * mn, b


def growth_exponent(points):
    """How the time added over the smallest count grows between the two largest counts, as a power
    of N: 1 is linear, 2 quadratic. None when the added time at the second largest count is too
    small next to the fixed cost (under a quarter of it) to be told from noise."""
    if len(points) < 3:
        return None
    t0 = points[0][1]
    (n1, t1, _), (n2, t2, _) = points[-2], points[-1]
    if t1 - t0 < 0.25 * t0 or t2 <= t1:
        return None
    return math.log((t2 - t0) / (t1 - t0)) / math.log(n2 / n1)


def fmt_per_input(s):
    return f"{s * 1e6:.2f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def plot_scaling(docs, outdir):
    series = scaling_series(docs)
    fig, ax = plt.subplots(figsize=(9, 6))
    styles = {"root": ":", "per-file": "-", "bind-each": "--", "open-tree": "-.",
              "symlinks": (0, (3, 1, 1, 1, 1, 1)), "overlay": (0, (6, 2, 1, 2))}
    cmap = plt.get_cmap("tab10")
    mechs = sorted({m for m, _ in series}, key=lambda m: (m != "process", m))
    for (mech, staging), points in sorted(series.items(), key=lambda kv: (mechs.index(kv[0][0]), kv[0][1])):
        ns = [n for n, _, _ in points]
        ts = [t * 1e3 for _, t, _ in points]
        lo = [max(0, (t - ci[0]) * 1e3) for _, t, ci in points]
        hi = [max(0, (ci[1] - t) * 1e3) for _, t, ci in points]
        fit = fit_per_input(points)
        expo = growth_exponent(points)
        name = "process (no staging)" if mech == "process" else f"{mech} {staging}"
        if fit:
            name += f": {fmt_per_input(max(fit[1], 0))}/input"
        if expo is not None and expo > 1.3:
            name += f", grows as N^{expo:.1f}"
        ax.errorbar(ns, ts, yerr=[lo, hi], marker="o", markersize=4, capsize=2,
                    linestyle=styles.get(staging, "-"), color=cmap(mechs.index(mech) % 10),
                    linewidth=2.2 if staging == "per-file" else 1.3, label=name)
    if series:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.legend(fontsize=7, loc="upper left")
    else:
        ax.text(0.5, 0.5, "no successful results of the inputs workload", ha="center",
                va="center", transform=ax.transAxes)
    ax.grid(which="both", alpha=0.3)
    ax.set_xlabel("inputs staged and read per action (log scale)")
    ax.set_ylabel("median time per action, spawn to reap, ms (log scale; whiskers: 95% interval)")
    dates = sorted(d["meta"].get("date_utc", "?") for d in docs)
    when = dates[0] if len(dates) == 1 else f"{len(dates)} runs, {dates[0]} … {dates[-1]}"
    ax.set_title("Cost of staging an action's inputs (fitted cost per input in the legend)\n"
                 f"{title_of(docs[-1]).rsplit(', ', 1)[0]}, {when}", fontsize=10)
    return save(fig, outdir, "scaling")


def has_inputs(doc):
    return any(r.get("workload") == "inputs" for r in doc["results"])


def plot_all(docs, outdir, sbxbench=None, last=7):
    """Writes every figure; returns {name: [paths]}. docs: loaded files in any order."""
    os.makedirs(outdir, exist_ok=True)
    docs = sorted(docs, key=lambda d: d["meta"].get("date_utc", ""))
    newest = docs[-1]
    figures = {
        "total": plot_total(newest, outdir),
        "overhead": plot_overhead(newest, outdir),
        "distribution": plot_distribution(newest, outdir),
    }
    if has_inputs(newest):
        figures["scaling"] = plot_scaling([newest], outdir)
    if len(docs) > 1:
        figures["history"] = plot_history(docs, outdir, sbxbench, last)
    return figures


def default_sbxbench():
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "build", "sbxbench")
    return built if os.access(built, os.X_OK) else shutil.which("sbxbench")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("-o", "--output", required=True, help="directory for the figures")
    ap.add_argument("--sbxbench", default=default_sbxbench(), help="for marking regressions")
    ap.add_argument("--last", type=int, default=7, help="nights each night is compared with")
    ap.add_argument("--scaling", action="store_true",
                    help="only the scaling figure, from every file together")
    args = ap.parse_args()
    try:
        docs = [load(p) for p in args.results]
    except BadInput as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    if args.scaling:
        if not any(has_inputs(d) for d in docs):
            print("plot.py: --scaling: no results of the inputs workload in the files given",
                  file=sys.stderr)
            return 2
        os.makedirs(args.output, exist_ok=True)
        for p in plot_scaling(docs, args.output):
            print(p)
        return 0
    for paths in plot_all(docs, args.output, args.sbxbench, args.last).values():
        for p in paths:
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
