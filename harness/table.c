#include "harness/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void format_duration(char *buf, size_t len, double s)
{
    if (!isfinite(s))
        snprintf(buf, len, "-");
    else if (s < 1e-3)
        snprintf(buf, len, "%.1f µs", s * 1e6);
    else if (s < 1)
        snprintf(buf, len, "%.3f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
}

enum {
    COL_MECH,
    COL_CASE,
    COL_MEDIAN,
    COL_MAD,
    COL_RANGE,
    COL_RATE,
    COL_RATIO,
    COL_OVERHEAD,
    COL_RUNS,
    NCOLS
};

struct row {
    char cell[NCOLS][96];
    const char *note; /* skipped reason, shown after the row */
    bool failed, noisy, skipped;
};

static void fill_row(const struct bench *b, struct row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->cell[COL_MECH], sizeof r->cell[0], "%s", b->runner->name);
    snprintf(r->cell[COL_CASE], sizeof r->cell[0], "%s", b->wcase->label);
    if (b->skipped) {
        r->skipped = true;
        r->note = b->reason;
        snprintf(r->cell[COL_MEDIAN], sizeof r->cell[0], "skipped");
        return;
    }
    const struct summary *s = &b->summary;
    size_t failed = b->n_samples - s->n;
    r->failed = failed > 0;
    r->noisy = s->n > 0 && s->cv > STATS_HIGH_CV;
    if (s->n == 0) {
        snprintf(r->cell[COL_MEDIAN], sizeof r->cell[0], "failed");
    } else {
        char lo[32], hi[32];
        format_duration(r->cell[COL_MEDIAN], sizeof r->cell[0], s->median);
        format_duration(lo, sizeof lo, s->mad);
        snprintf(r->cell[COL_MAD], sizeof r->cell[0], "± %s", lo);
        format_duration(lo, sizeof lo, s->min);
        format_duration(hi, sizeof hi, s->max);
        snprintf(r->cell[COL_RANGE], sizeof r->cell[0], "%s … %s", lo, hi);
    }
    if (s->n > 0 && b->wcase->volume_bytes > 0)
        snprintf(r->cell[COL_RATE], sizeof r->cell[0], "%.1f",
                 (double)b->wcase->volume_bytes / s->median / 1e6);
    if (isfinite(b->ratio))
        snprintf(r->cell[COL_RATIO], sizeof r->cell[0], "%.2f× [%.2f, %.2f]", b->ratio,
                 b->ratio_lo, b->ratio_hi);
    if (isfinite(b->overhead_s) && b->baseline != b) {
        char d[32];
        format_duration(d, sizeof d, fabs(b->overhead_s));
        snprintf(r->cell[COL_OVERHEAD], sizeof r->cell[0], "%s%s (%.0f%%)",
                 b->overhead_s < 0 ? "-" : "+", d, b->overhead_fraction * 100);
    }
    if (failed)
        snprintf(r->cell[COL_RUNS], sizeof r->cell[0], "%zu (%zu failed)", b->n_samples, failed);
    else
        snprintf(r->cell[COL_RUNS], sizeof r->cell[0], "%zu", b->n_samples);
}

/* UTF-8 continuation bytes take no column. */
int display_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

void print_padded(FILE *out, const char *s, int w, bool right)
{
    int fill = w - display_width(s);
    if (right)
        fprintf(out, "%*s%s", fill > 0 ? fill : 0, "", s);
    else
        fprintf(out, "%s%*s", s, fill > 0 ? fill : 0, "");
}

static const char *const headers[NCOLS] = {
    "mechanism", "workload", "median", "± MAD", "min … max", "MB/s", "× process [95% CI]",
    "overhead (% of median)", "runs"};

/* Throughput is shown only when some case moves a known volume. */
static bool column_shown(const struct run *run, int c)
{
    if (c != COL_RATE)
        return true;
    for (size_t i = 0; i < run->n_benches; i++)
        if (run->benches[i].wcase->volume_bytes > 0)
            return true;
    return false;
}

static int last_shown(const struct run *run)
{
    int last = 0;
    for (int c = 0; c < NCOLS; c++)
        if (column_shown(run, c))
            last = c;
    return last;
}

static void print_failures(FILE *out, const struct run *run)
{
    for (size_t i = 0; i < run->n_benches; i++) {
        const struct bench *b = &run->benches[i];
        if (b->n_failures)
            fprintf(out, "  %s × %s: %zu failed run(s); first: %s\n", b->runner->name,
                    b->wcase->label, b->n_failures, b->failures[0].reason);
    }
}

void print_table(FILE *out, const struct run *run, bool color)
{
    struct row *rows = calloc(run->n_benches ? run->n_benches : 1, sizeof *rows);
    if (!rows)
        return;
    int w[NCOLS];
    for (int c = 0; c < NCOLS; c++)
        w[c] = display_width(headers[c]);
    for (size_t i = 0; i < run->n_benches; i++) {
        fill_row(&run->benches[i], &rows[i]);
        for (int c = 0; c < NCOLS; c++)
            if (!rows[i].skipped && display_width(rows[i].cell[c]) > w[c])
                w[c] = display_width(rows[i].cell[c]);
    }
    int last = last_shown(run);
    for (int c = 0; c < NCOLS; c++) {
        if (!column_shown(run, c))
            continue;
        if (color)
            fputs("\033[1m", out);
        print_padded(out, headers[c], w[c], c >= COL_MEDIAN && c != COL_RANGE);
        if (color)
            fputs("\033[0m", out);
        fputs(c < last ? "  " : "\n", out);
    }
    bool any_noisy = false;
    for (size_t i = 0; i < run->n_benches; i++) {
        struct row *r = &rows[i];
        if (r->skipped) {
            print_padded(out, r->cell[COL_MECH], w[COL_MECH], false);
            fputs("  ", out);
            print_padded(out, r->cell[COL_CASE], w[COL_CASE], false);
            fprintf(out, color ? "  \033[33mskipped: %s\033[0m\n" : "  skipped: %s\n", r->note);
            continue;
        }
        any_noisy |= r->noisy;
        for (int c = 0; c < NCOLS; c++) {
            if (!column_shown(run, c))
                continue;
            bool red = color && c == COL_RUNS && r->failed;
            if (red)
                fputs("\033[31m", out);
            print_padded(out, r->cell[c], w[c], c >= COL_MEDIAN && c != COL_RANGE);
            if (red)
                fputs("\033[0m", out);
            if (c < last)
                fputs("  ", out);
        }
        fputs(r->noisy ? "  (noisy)\n" : "\n", out);
    }
    if (any_noisy)
        fprintf(out, "(noisy): coefficient of variation above %.0f%%: compare medians, not means\n",
                STATS_HIGH_CV * 100);
    print_failures(out, run);
    if (run->interrupted)
        fputs("interrupted: results are incomplete\n", out);
    free(rows);
}

static void md_escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else
            fputc(*s, out);
    }
}

void print_markdown(FILE *out, const struct run *run)
{
    int last = last_shown(run);
    for (int pass = 0; pass < 2; pass++) {
        fputs("|", out);
        for (int c = 0; c < NCOLS; c++) {
            if (!column_shown(run, c))
                continue;
            if (pass == 0)
                fprintf(out, " %s |", headers[c]);
            else
                fputs(c < COL_MEDIAN || c == COL_RANGE ? "---|" : "--:|", out);
        }
        fputs("\n", out);
    }
    for (size_t i = 0; i < run->n_benches; i++) {
        struct row r;
        fill_row(&run->benches[i], &r);
        fputs("| ", out);
        for (int c = 0; c < NCOLS; c++) {
            if (!column_shown(run, c))
                continue;
            if (r.skipped && c == COL_MEDIAN) {
                fputs("skipped: ", out);
                md_escape(out, r.note);
                for (int rest = c + 1; rest <= last; rest++)
                    if (column_shown(run, rest))
                        fputs(" | ", out);
                fputs(" |\n", out);
                break;
            }
            md_escape(out, r.cell[c]);
            fputs(c < last ? " | " : " |\n", out);
        }
    }
    if (run->interrupted)
        fputs("\n*Interrupted: results are incomplete.*\n", out);
}
