#include "harness/compare_output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results_json.h"
#include "harness/table.h"

enum {
    COL_MECH,
    COL_CASE,
    COL_BASE,
    COL_NEW,
    COL_CHANGE,
    COL_P,
    COL_OVER,
    COL_OVER_CHANGE,
    COL_VERDICT,
    NCOLS
};

static const char *const headers[NCOLS] = {
    "mechanism",       "case",   "base", "new", "change [95% CI]", "p", "× process: base → new",
    "change [95% CI]", "verdict"};

struct row {
    char cell[NCOLS][96];
};

static void format_change(char *buf, size_t len, const struct change *ch)
{
    if (!ch->valid)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.1f%% [%+.1f%%, %+.1f%%]", (ch->shift.ratio - 1) * 100,
                 (ch->shift.lo - 1) * 100, (ch->shift.hi - 1) * 100);
}

static void format_p(char *buf, size_t len, double p)
{
    if (!isfinite(p))
        snprintf(buf, len, "-");
    else if (p < 0.001)
        snprintf(buf, len, "<0.001");
    else
        snprintf(buf, len, "%.3f", p);
}

static const char *verdict_text(enum pair_status s)
{
    switch (s) {
    case PAIR_REGRESSED:
        return "REGRESSED";
    case PAIR_IMPROVED:
        return "improved";
    case PAIR_ONLY_BASE:
        return "only in base";
    case PAIR_ONLY_NEW:
        return "only in new";
    case PAIR_NO_DATA:
        return "no data";
    case PAIR_UNCHANGED:
    case PAIR_STATUSES:
    default:
        return "unchanged";
    }
}

static void fill_row(const struct pair *p, struct row *r)
{
    memset(r, 0, sizeof *r);
    for (int c = 0; c < NCOLS; c++)
        snprintf(r->cell[c], sizeof r->cell[c], "-");
    snprintf(r->cell[COL_MECH], sizeof r->cell[0], "%s", p->mechanism);
    snprintf(r->cell[COL_CASE], sizeof r->cell[0], "%s", p->label);
    snprintf(r->cell[COL_VERDICT], sizeof r->cell[0], "%s", verdict_text(p->status));
    if (p->absolute.valid) {
        format_duration(r->cell[COL_BASE], sizeof r->cell[0], p->absolute.shift.base);
        format_duration(r->cell[COL_NEW], sizeof r->cell[0], p->absolute.shift.new_);
        format_change(r->cell[COL_CHANGE], sizeof r->cell[0], &p->absolute);
        format_p(r->cell[COL_P], sizeof r->cell[0], p->p);
    }
    if (p->overhead.valid) {
        snprintf(r->cell[COL_OVER], sizeof r->cell[0], "%.2f× → %.2f×", p->overhead.shift.base,
                 p->overhead.shift.new_);
        format_change(r->cell[COL_OVER_CHANGE], sizeof r->cell[0], &p->overhead);
    }
}

static bool right_aligned(int col)
{
    return col != COL_MECH && col != COL_CASE && col != COL_VERDICT;
}

static const char *basis_phrase(enum compare_basis b)
{
    return b == BASIS_OVERHEAD ? "overhead over process" : "absolute time";
}

static void print_heading(FILE *out, const struct comparison *c, const struct compare_sources *src)
{
    if (src->n_base > 1)
        fprintf(out, "base: %s (%zu runs, %s to %s)\n", src->base_path, src->n_base,
                src->base[0]->date_utc, src->base[src->n_base - 1]->date_utc);
    else
        fprintf(out, "base: %s (%s)\n", src->base_files[0], src->base[0]->date_utc);
    fprintf(out, "new:  %s (%s)\n", src->new_path, src->new_->date_utc);
    fprintf(out, "threshold %.3g%%, 95%% intervals, verdicts by %s\n\n", c->threshold * 100,
            basis_phrase(c->basis));
}

static void print_summary_line(FILE *out, const struct comparison *c)
{
    fprintf(out, "%zu regressed, %zu improved, %zu unchanged, %zu only in base, %zu only in new",
            c->counts[PAIR_REGRESSED], c->counts[PAIR_IMPROVED], c->counts[PAIR_UNCHANGED],
            c->counts[PAIR_ONLY_BASE], c->counts[PAIR_ONLY_NEW]);
    if (c->counts[PAIR_NO_DATA])
        fprintf(out, ", %zu without data", c->counts[PAIR_NO_DATA]);
    fputc('\n', out);
}

static void print_notes(FILE *out, const struct comparison *c, const char *bullet)
{
    for (size_t i = 0; i < c->n_pairs; i++) {
        const struct pair *p = &c->pairs[i];
        if (p->why[0])
            fprintf(out, "%s%s × %s: %s\n", bullet, p->mechanism, p->label, p->why);
        for (size_t k = 0; k < p->n_notes; k++)
            fprintf(out, "%s%s × %s: %s\n", bullet, p->mechanism, p->label, p->notes[k]);
    }
}

void print_compare_table(FILE *out, const struct comparison *c, const struct compare_sources *src,
                         bool color)
{
    struct row *rows = calloc(c->n_pairs + 1, sizeof *rows);
    if (!rows)
        return;
    int w[NCOLS];
    for (int col = 0; col < NCOLS; col++)
        w[col] = display_width(headers[col]);
    for (size_t i = 0; i < c->n_pairs; i++) {
        fill_row(&c->pairs[i], &rows[i]);
        for (int col = 0; col < NCOLS; col++)
            if (display_width(rows[i].cell[col]) > w[col])
                w[col] = display_width(rows[i].cell[col]);
    }
    print_heading(out, c, src);
    for (int col = 0; col < NCOLS; col++) {
        fputs(color ? "\033[1m" : "", out);
        print_padded(out, headers[col], w[col], right_aligned(col));
        fputs(color ? "\033[0m" : "", out);
        fputs(col + 1 < NCOLS ? "  " : "\n", out);
    }
    for (size_t i = 0; i < c->n_pairs; i++) {
        enum pair_status s = c->pairs[i].status;
        const char *on = !color                ? ""
                         : s == PAIR_REGRESSED ? "\033[1;31m"
                         : s == PAIR_IMPROVED  ? "\033[32m"
                         : s != PAIR_UNCHANGED ? "\033[33m"
                                               : "";
        for (int col = 0; col < NCOLS; col++) {
            if (col == COL_VERDICT)
                fputs(on, out);
            print_padded(out, rows[i].cell[col], col + 1 < NCOLS ? w[col] : 0, right_aligned(col));
            if (col == COL_VERDICT && *on)
                fputs("\033[0m", out);
            fputs(col + 1 < NCOLS ? "  " : "\n", out);
        }
    }
    free(rows);
    fputc('\n', out);
    print_notes(out, c, "  ");
    print_summary_line(out, c);
}

static void md_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '*' || *s == '_' || *s == '`' || *s == '\\' || *s == '<')
            fputc('\\', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
}

void print_compare_markdown(FILE *out, const struct comparison *c,
                            const struct compare_sources *src)
{
    size_t bad = c->counts[PAIR_REGRESSED];
    fprintf(out, "### sbxbench compare: %s\n\n",
            bad ? (bad == 1 ? "1 regression" : "regressions") : "no regression");
    if (bad > 1)
        fprintf(out, "%zu pairs regressed.\n\n", bad);
    fputs("Base: `", out);
    md_text(out, src->base_path);
    fprintf(out, "` (%zu run%s, latest %s) · New: `", src->n_base, src->n_base == 1 ? "" : "s",
            src->base[src->n_base - 1]->date_utc);
    md_text(out, src->new_path);
    fprintf(out, "` (%s) · threshold %.3g%% · verdicts by %s\n\n", src->new_->date_utc,
            c->threshold * 100, basis_phrase(c->basis));
    for (size_t i = 0; i < c->n_warnings; i++) {
        fputs("> **warning:** ", out);
        md_text(out, c->warnings[i]);
        fputs("\n>\n", out);
    }
    if (c->n_warnings)
        fputc('\n', out);
    fputs("| verdict | mechanism | case | base | new | change [95% CI] | p | × process: base → new "
          "| change [95% CI] |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n",
          out);
    for (size_t i = 0; i < c->n_pairs; i++) {
        struct row r;
        fill_row(&c->pairs[i], &r);
        bool loud = c->pairs[i].status == PAIR_REGRESSED;
        fprintf(out, "| %s%s%s |", loud ? "**" : "", verdict_text(c->pairs[i].status),
                loud ? "**" : "");
        for (int col = COL_MECH; col < COL_VERDICT; col++) {
            fputc(' ', out);
            md_text(out, r.cell[col]);
            fputs(" |", out);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
    print_notes(out, c, "- ");
    if (c->n_pairs)
        fputc('\n', out);
    print_summary_line(out, c);
}

static json_t *interval_json(const struct stats_shift *s)
{
    return json_pack("[oo]", json_number_or_null(s->lo), json_number_or_null(s->hi));
}

static json_t *change_json(const struct change *ch)
{
    if (!ch->valid)
        return json_null();
    const char *verdict = ch->verdict == VERDICT_REGRESSED  ? "regressed"
                          : ch->verdict == VERDICT_IMPROVED ? "improved"
                                                            : "unchanged";
    return json_pack("{s:o,s:o,s:o,s:o,s:s,s:o}", "base", json_number_or_null(ch->shift.base),
                     "new", json_number_or_null(ch->shift.new_), "ratio",
                     json_number_or_null(ch->shift.ratio), "ratio_ci", interval_json(&ch->shift),
                     "verdict", verdict, "night_spread",
                     json_number_or_null(ch->shift.night_spread));
}

static json_t *pair_json(const struct pair *p)
{
    json_t *notes = json_array();
    for (size_t k = 0; k < p->n_notes; k++)
        json_array_append_new(notes, json_string(p->notes[k]));
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:s,s:s}", "mechanism", p->mechanism, "family", p->family,
                  "workload", p->workload, "case", p->label, "status", pair_status_name(p->status));
    if (!o) {
        json_decref(notes);
        return NULL;
    }
    json_object_set_new(o, "absolute", change_json(&p->absolute));
    json_object_set_new(o, "overhead", change_json(&p->overhead));
    json_object_set_new(o, "p", json_number_or_null(p->p));
    json_object_set_new(o, "base_nights", json_integer((json_int_t)p->base_nights));
    json_object_set_new(o, "n_base", json_integer((json_int_t)p->n_base));
    json_object_set_new(o, "n_new", json_integer((json_int_t)p->n_new));
    json_object_set_new(o, "drift_new", json_number_or_null(p->drift_new));
    json_object_set_new(o, "drift_base", json_number_or_null(p->drift_base));
    json_object_set_new(o, "why", p->why[0] ? json_string(p->why) : json_null());
    json_object_set_new(o, "notes", notes);
    return o;
}

static json_t *run_json(const char *path, const struct results_file *f)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:b}", "file", path, "date_utc", f->date_utc,
                     "git_commit", f->git_commit, "host", f->host, "kernel", f->kernel, "cpu_model",
                     f->cpu_model ? json_string(f->cpu_model) : json_null(), "complete",
                     f->complete);
}

json_t *compare_json(const struct comparison *c, const struct compare_sources *src)
{
    json_t *doc = json_object(), *base = json_array(), *pairs = json_array(),
           *warnings = json_array(), *summary = json_object();
    if (!doc || !base || !pairs || !warnings || !summary) {
        json_decref(doc);
        json_decref(base);
        json_decref(pairs);
        json_decref(warnings);
        json_decref(summary);
        return NULL;
    }
    for (size_t i = 0; i < src->n_base; i++)
        json_array_append_new(base, run_json(src->base_files[i], src->base[i]));
    for (size_t i = 0; i < c->n_pairs; i++)
        json_array_append_new(pairs, pair_json(&c->pairs[i]));
    for (size_t i = 0; i < c->n_warnings; i++)
        json_array_append_new(warnings, json_string(c->warnings[i]));
    for (int s = 0; s < PAIR_STATUSES; s++)
        json_object_set_new(summary, pair_status_name((enum pair_status)s),
                            json_integer((json_int_t)c->counts[s]));
    json_object_set_new(doc, "schema", json_string("sbxbench-compare"));
    json_object_set_new(doc, "schema_version", json_integer(1));
    json_object_set_new(doc, "base_path", json_string(src->base_path));
    json_object_set_new(doc, "base", base);
    json_object_set_new(doc, "new", run_json(src->new_path, src->new_));
    json_object_set_new(doc, "threshold", json_real(c->threshold));
    json_object_set_new(doc, "level", json_real(c->level));
    json_object_set_new(doc, "basis", json_string(compare_basis_name(c->basis)));
    json_object_set_new(doc, "rule",
                        json_string("regressed: the interval of new/base lies above 1 "
                                    "and the estimate above 1 + threshold"));
    json_object_set_new(doc, "warnings", warnings);
    json_object_set_new(doc, "summary", summary);
    json_object_set_new(doc, "regression", json_boolean(c->counts[PAIR_REGRESSED] > 0));
    json_object_set_new(doc, "pairs", pairs);
    return doc;
}
