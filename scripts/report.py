#!/usr/bin/python3
"""A report a person reads in ten seconds: one self-contained static HTML page, and a Markdown
summary for a CI comment.

usage: report.py RESULTS.json [RESULTS.json ...] -o DIR [--baseline BASE] [--sbxbench PATH]
                 [--threshold PCT] [--title TEXT]

The newest file (by meta.date_utc) is the run reported; all of them feed the history figure.
With --baseline (a results file or a directory of nightly results) the run is judged by
`sbxbench compare`, whose verdicts the page shows as they are: nothing is recomputed here.

Writes DIR/index.html (plots embedded as data: URIs, no network at all), DIR/summary.md,
DIR/compare.json (with --baseline) and DIR/plots/*.png|svg.
Exit status: 0, or 2 for bad input; a regression is compare's to fail on, not the report's.
"""
import argparse
import base64
import html
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402  (scripts/plot.py, beside this file)

STATUS_TEXT = {"regressed": "regressed", "improved": "improved", "unchanged": "unchanged",
               "only-in-base": "only in base", "only-in-new": "only in new", "no-data": "no data"}

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222;
       padding: 0 1em; }
h1 { margin-bottom: 0.1em; } .sub { color: #666; margin-top: 0; }
.banner { padding: 0.8em 1.2em; border-radius: 6px; font-size: 1.3em; font-weight: 600;
          margin: 1em 0; }
.banner.bad { background: #fde2e1; color: #8b1a14; border: 1px solid #e6a19c; }
.banner.good { background: #e3f4e6; color: #1d5e2a; border: 1px solid #9fd4aa; }
.banner.none { background: #eee; color: #444; border: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.7em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.regressed td { background: #fde2e1; } tr.improved td { background: #e3f4e6; }
tr.only-in-base td, tr.only-in-new td, tr.no-data td { color: #8a6d00; }
.status { font-weight: 600; } .note { color: #666; font-size: 12px; }
.warn { background: #fff6d6; border: 1px solid #e8d38a; padding: 0.4em 0.8em; margin: 0.3em 0; }
figure { margin: 1em 0 2em; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 12px; }
.plot-error { color: #8b1a14; font-weight: 600; }
details { margin: 0.5em 0 1.5em; } code { font-size: 12px; }
"""

# Runs once the page has loaded: every plot must have decoded and drawn something. A plot that
# did not is flagged on the page, and the counts are left on <body> for automated checks.
CHECK_SCRIPT = """
window.addEventListener('load', function () {
  var images = document.querySelectorAll('img.plot'), drawn = 0;
  images.forEach(function (img) {
    var ok = img.complete && img.naturalWidth > 0;
    if (ok) {
      var c = document.createElement('canvas');
      c.width = img.naturalWidth; c.height = img.naturalHeight;
      var g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      var px = g.getImageData(0, 0, c.width, c.height).data, first = -1, varied = false;
      for (var i = 0; i < px.length && !varied; i += 4 * 7) {
        var v = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2] | (px[i + 3] << 24);
        if (first === -1) first = v; else if (v !== first) varied = true;
      }
      ok = varied;
    }
    if (ok) { drawn++; return; }
    var p = document.createElement('p');
    p.className = 'plot-error';
    p.textContent = 'This plot did not render: see the PNG/SVG files beside this page.';
    img.parentNode.insertBefore(p, img);
  });
  document.body.setAttribute('data-plots', String(images.length));
  document.body.setAttribute('data-plots-rendered', String(drawn));
});
"""


def esc(x):
    return html.escape("" if x is None else str(x))


def pct(r):
    return f"{(r - 1) * 100:+.1f}%"


def change_text(ch):
    if not ch:
        return "–"
    lo, hi = ch["ratio_ci"]
    return f"{pct(ch['ratio'])} [{pct(lo)}, {pct(hi)}]"


def p_text(p):
    if p is None:
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def run_compare(sbxbench, baseline, new, threshold, fmt):
    """(returncode, stdout, stderr) of `sbxbench compare`, or (None, '', why)."""
    if not sbxbench or not os.access(sbxbench, os.X_OK):
        return None, "", "sbxbench binary not found (build it, or pass --sbxbench)"
    cmd = [sbxbench, "compare", f"--format={fmt}", "--color=never", baseline, new]
    if threshold is not None:
        cmd.insert(2, f"--threshold={threshold}")
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def banner(comparison, error):
    if error:
        return f'<div class="banner none">No comparison: {esc(error)}</div>'
    if comparison is None:
        return '<div class="banner none">No baseline given: nothing judged</div>'
    n = comparison["summary"]["regressed"]
    if n:
        names = ", ".join(f"{p['mechanism']} × {p['case']}" for p in comparison["pairs"]
                          if p["status"] == "regressed")
        return (f'<div class="banner bad">{n} regression{"s" if n > 1 else ""}: {esc(names)}'
                '</div>')
    s = comparison["summary"]
    return (f'<div class="banner good">No regression ({s["unchanged"]} unchanged, '
            f'{s["improved"]} improved)</div>')


def comparison_html(c):
    basis = "overhead over each file's own process" if c["basis"] == "overhead" else "absolute time"
    nights = len(c["base"])
    out = [f"<h2>Against the baseline</h2><p>Base <code>{esc(c['base_path'])}</code> "
           f"({nights} run{'s' if nights != 1 else ''}, latest {esc(c['base'][-1]['date_utc'])}); "
           f"threshold {c['threshold'] * 100:g}%; 95% intervals; verdicts by {basis}. "
           "A regression is a change whose interval lies above 1 and whose estimate exceeds the "
           "threshold (docs/ci.md).</p>"]
    for w in c["warnings"]:
        out.append(f'<div class="warn">warning: {esc(w)}</div>')
    out.append("<table><tr><th>verdict</th><th>mechanism</th><th>case</th><th>base</th><th>new</th>"
               "<th>change [95% CI]</th><th>p</th><th>× process: base → new</th>"
               "<th>change [95% CI]</th><th>notes</th></tr>")
    for p in c["pairs"]:
        a, o = p["absolute"], p["overhead"]
        notes = ([p["why"]] if p["why"] else []) + p["notes"]
        over = f"{o['base']:.2f}× → {o['new']:.2f}×" if o else "–"
        out.append(
            f'<tr class="{esc(p["status"])}"><td class="status">{esc(STATUS_TEXT.get(p["status"], p["status"]))}</td>'
            f"<td>{esc(p['mechanism'])}</td><td>{esc(p['case'])}</td>"
            f'<td class="num">{esc(plot.fmt_seconds(a["base"])) if a else "–"}</td>'
            f'<td class="num">{esc(plot.fmt_seconds(a["new"])) if a else "–"}</td>'
            f'<td class="num">{esc(change_text(a))}</td><td class="num">{esc(p_text(p["p"]))}</td>'
            f'<td class="num">{esc(over)}</td>'
            f'<td class="num">{esc(change_text(o))}</td>'
            f'<td class="note">{"<br>".join(esc(n) for n in notes)}</td></tr>')
    out.append("</table>")
    return "\n".join(out)


def summary_rows(doc):
    rows = []
    for r in doc["results"]:
        st = plot.state(r)
        note = ""
        if st == "skipped":
            note = "skipped: " + (r.get("reason") or "")
        elif r.get("failed"):
            first = (r.get("failures") or [{}])[0].get("reason", "")
            note = f"{r['failed']} failed; first: {first}"
        if st == "ok" and r.get("high_cv"):
            note = (note + "; " if note else "") + f"noisy (CV {r['cv'] * 100:.0f}%)"
        rows.append((r, st, note))
    return rows


def results_html(doc):
    out = ["<h2>This run</h2><table><tr><th>mechanism</th><th>family</th><th>case</th>"
           "<th>median</th><th>± MAD</th><th>min … max</th><th>× process [95% CI]</th>"
           "<th>runs</th><th>notes</th></tr>"]
    for r, st, note in summary_rows(doc):
        if st == "ok":
            cells = (f'<td class="num">{plot.fmt_seconds(r["median"])}</td>'
                     f'<td class="num">± {plot.fmt_seconds(r["mad"])}</td>'
                     f'<td class="num">{plot.fmt_seconds(r["min"])} … {plot.fmt_seconds(r["max"])}</td>')
            ratio = (f'{r["ratio"]:.2f}× [{r["ratio_ci"][0]:.2f}, {r["ratio_ci"][1]:.2f}]'
                     if r.get("ratio") is not None and r.get("ratio_ci") else "–")
        else:
            cells = f'<td colspan="3">{"skipped" if st == "skipped" else "every sample failed"}</td>'
            ratio = "–"
        out.append(f"<tr><td>{esc(r['mechanism'])}</td><td>{esc(r['family'])}</td>"
                   f"<td>{esc(r['case'])}</td>{cells}<td class=\"num\">{esc(ratio)}</td>"
                   f"<td class=\"num\">{esc(r['runs'])}</td><td class=\"note\">{esc(note)}</td></tr>")
    out.append("</table>")
    return "\n".join(out)


CAPTIONS = {
    "total": "Total time per mechanism: median spawn-to-reap time with its 95% bootstrap interval.",
    "overhead": "Marginal overhead: each mechanism's median minus the plain process's, containers "
                "on their own scale.",
    "distribution": "Every successful sample per mechanism (violins; line: median).",
    "history": "Each median over the nights given; red circles: nights `sbxbench compare` judged "
               "a regression against the nights before.",
    "scaling": "Time against the number of inputs, log-log: a line per mechanism and staging "
               "method, with its fitted cost per input (docs/scaling.md).",
}


def figures_html(figures, outdir):
    out = ["<h2>Figures</h2>"]
    for name, paths in figures.items():
        png = next(p for p in paths if p.endswith(".png"))
        svg = next(p for p in paths if p.endswith(".svg"))
        with open(png, "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        rel = os.path.relpath(svg, outdir)
        out.append(f'<figure id="fig-{esc(name)}"><img class="plot" alt="{esc(name)}" '
                   f'src="data:image/png;base64,{data}"><figcaption>{esc(CAPTIONS.get(name, name))} '
                   f'(<a href="{esc(rel)}">SVG</a>)</figcaption></figure>')
    return "\n".join(out)


def host_html(doc):
    meta = doc["meta"]
    host = meta.get("host", {})
    rows = [("sbxbench", f"{meta.get('sbxbench_version')} (git {meta.get('git_commit')})"),
            ("date (UTC)", meta.get("date_utc")), ("duration", f"{meta.get('duration_s', 0):.1f} s"),
            ("complete", "yes" if doc.get("complete") else "no: the run was interrupted")]
    for key in ("host", "os", "kernel", "kernel_version", "arch", "cpu_model", "cores",
                "memory_kb", "uid", "time_namespaces"):
        if key in host:
            rows.append((key, host[key]))
    for name, tool in sorted((host.get("tools") or {}).items()):
        if tool:
            rows.append((name, " ".join(str(x) for x in (tool.get("version") or tool.get("resolves_to"),
                                                          f"({tool.get('path')})") if x)))
        else:
            rows.append((name, "not installed"))
    table = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    config = esc(json.dumps(meta.get("config", {}), indent=1))
    stats = esc(json.dumps(meta.get("statistics", {}), indent=1))
    return (f"<h2>Host and versions</h2><table>{table}</table>"
            f"<details><summary>Configuration of the run</summary><pre>{config}</pre></details>"
            f"<details><summary>Statistics</summary><pre>{stats}</pre></details>")


def page(title, newest, comparison, compare_error, figures, outdir, files):
    meta = newest["meta"]
    host = meta.get("host", {})
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title><style>{CSS}</style></head>
<body>
<h1>{esc(title)}</h1>
<p class="sub">{esc(host.get('host'))} · {esc(host.get('kernel'))} · {esc(host.get('cpu_model'))} ·
{esc(meta.get('date_utc'))} · sbxbench {esc(meta.get('sbxbench_version'))} ({esc(meta.get('git_commit'))})</p>
{banner(comparison, compare_error)}
{comparison_html(comparison) if comparison else ''}
{results_html(newest)}
{figures_html(figures, outdir)}
{host_html(newest)}
<p class="note">Results: {esc(', '.join(files))}. Generated by scripts/report.py; the method is in docs/ci.md.</p>
<script>{CHECK_SCRIPT}</script>
</body></html>
"""


def markdown(title, newest, comparison, compare_md, compare_error):
    meta = newest["meta"]
    host = meta.get("host", {})
    lines = [f"## {title}", "",
             f"{host.get('host')} · {host.get('kernel')} · {host.get('cpu_model')} · "
             f"{meta.get('date_utc')} · sbxbench {meta.get('sbxbench_version')} ({meta.get('git_commit')})", ""]
    if compare_error:
        lines += [f"**No comparison:** {compare_error}", ""]
    elif comparison is None:
        lines += ["No baseline given: nothing judged.", ""]
    else:
        lines += [compare_md.strip().replace("### ", "### Against the baseline: ", 1), ""]
    lines += ["### This run", "", "| mechanism | case | median | ± MAD | × process | runs | notes |",
              "|---|---|---:|---:|---:|---:|---|"]
    for r, st, note in summary_rows(newest):
        if st == "ok":
            ratio = f"{r['ratio']:.2f}×" if r.get("ratio") is not None else "–"
            cells = f"{plot.fmt_seconds(r['median'])} | ± {plot.fmt_seconds(r['mad'])} | {ratio}"
        else:
            cells = f"{'skipped' if st == 'skipped' else 'failed'} | | –"
        note = note.replace("|", "\\|")
        lines.append(f"| {r['mechanism']} | {r['case']} | {cells} | {r['runs']} | {note} |")
    lines += ["", "The full report (figures, host and versions) is `index.html` in the artifact."]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--baseline", help="results file or directory of nightly results")
    ap.add_argument("--sbxbench", default=plot.default_sbxbench())
    ap.add_argument("--threshold", help="percent, passed to sbxbench compare")
    ap.add_argument("--title", default="sbxbench report")
    args = ap.parse_args()
    try:
        docs = [plot.load(p) for p in args.results]
    except plot.BadInput as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    newest = sorted(docs, key=lambda d: d["meta"].get("date_utc", ""))[-1]
    os.makedirs(args.output, exist_ok=True)

    comparison, compare_md, compare_error = None, "", None
    if args.baseline:
        rc, out, err = run_compare(args.sbxbench, args.baseline, newest["_path"], args.threshold, "json")
        if rc in (0, 1):
            comparison = json.loads(out)
            with open(os.path.join(args.output, "compare.json"), "w") as f:
                f.write(out)
            _, compare_md, _ = run_compare(args.sbxbench, args.baseline, newest["_path"],
                                           args.threshold, "markdown")
        else:
            compare_error = (err.strip().splitlines() or ["sbxbench compare failed"])[-1]

    figures = plot.plot_all(docs, os.path.join(args.output, "plots"), args.sbxbench)
    files = [os.path.basename(d["_path"]) for d in docs]
    with open(os.path.join(args.output, "index.html"), "w", encoding="utf-8") as f:
        f.write(page(args.title, newest, comparison, compare_error, figures, args.output, files))
    with open(os.path.join(args.output, "summary.md"), "w", encoding="utf-8") as f:
        f.write(markdown(args.title, newest, comparison, compare_md, compare_error))
    print(os.path.join(args.output, "index.html"))
    print(os.path.join(args.output, "summary.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
