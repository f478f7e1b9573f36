/* sbx-render: renders a Prospero VM program with a JIT (AVX-512 or AVX2) or the interpreter.
 *
 * Exit status: 0 rendered, 1 a run-time failure (memory, writing the image), 2 usage or a bad
 * program. The image goes to -o FILE or stdout; --timings writes JSON to stderr. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/render/compile.h"
#include "workloads/render/pgm.h"
#include "workloads/render/scene.h"

#define PROG "sbx-render"
#define MAX_FILE_BYTES (1L << 30)
#define MAX_REPEAT 100000

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

struct options {
    const char *vm; /* NULL: the built-in scene */
    int size;
    int threads;
    const char *isa;
    const char *output; /* NULL or "-": stdout */
    int timings;
    int repeat;
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: " PROG " [--vm FILE] [--size N] [--threads N] [--isa auto|avx512|avx2|interp]\n"
            "                  [-o OUT.pgm] [--timings] [--repeat N]\n"
            "\n"
            "Renders a Prospero VM program (default: the built-in scene) as an N x N binary PGM.\n"
            "\n"
            "  --vm FILE      the program\n"
            "  --size N       image side in pixels, %d to %d (default: 1024)\n"
            "  --threads N    threads (default: the CPUs this process may run on)\n"
            "  --isa ISA      auto (default: the widest this CPU has), avx512, avx2 or interp\n"
            "  -o FILE        write the image here (default: stdout)\n"
            "  --timings      per-phase times and allocation figures as JSON on stderr\n"
            "  --repeat N     render N times, timing each (default: 1)\n",
            RENDER_MIN_SIZE, RENDER_MAX_SIZE);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry '" PROG " --help'.\n", stderr);
    return EXIT_USAGE;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int default_threads(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

enum { OPT_VM = 256, OPT_SIZE, OPT_THREADS, OPT_ISA, OPT_TIMINGS, OPT_REPEAT };

static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"vm", required_argument, NULL, OPT_VM},
        {"size", required_argument, NULL, OPT_SIZE},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"isa", required_argument, NULL, OPT_ISA},
        {"output", required_argument, NULL, 'o'},
        {"timings", no_argument, NULL, OPT_TIMINGS},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.size = 1024, .isa = "auto", .repeat = 1};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_VM:
            o->vm = optarg;
            break;
        case OPT_SIZE:
            if (parse_int(optarg, RENDER_MIN_SIZE, RENDER_MAX_SIZE, &o->size) < 0)
                return usage_error("--size: expected a whole number from %d to %d, not '%s'",
                                   RENDER_MIN_SIZE, RENDER_MAX_SIZE, optarg);
            break;
        case OPT_THREADS:
            if (parse_int(optarg, 1, 1024, &o->threads) < 0)
                return usage_error("--threads: expected a whole number from 1 to 1024, not '%s'",
                                   optarg);
            break;
        case OPT_ISA:
            o->isa = optarg;
            break;
        case 'o':
            o->output = optarg;
            break;
        case OPT_TIMINGS:
            o->timings = 1;
            break;
        case OPT_REPEAT:
            if (parse_int(optarg, 1, MAX_REPEAT, &o->repeat) < 0)
                return usage_error("--repeat: expected a whole number from 1 to %d, not '%s'",
                                   MAX_REPEAT, optarg);
            break;
        case 'h':
            usage(stdout);
            exit(0);
        case ':':
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        case '?':
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (o->threads == 0)
        o->threads = default_threads();
    return 0;
}

static int choose_isa(const char *name, enum render_isa *isa)
{
    static const struct {
        const char *name;
        enum render_isa isa;
    } isas[] = {{"avx512", ISA_AVX512}, {"avx2", ISA_AVX2}, {"interp", ISA_INTERP}};
    if (strcmp(name, "auto") == 0) {
        *isa = isa_best();
        return 0;
    }
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        if (strcmp(name, isas[i].name) != 0)
            continue;
        if (!isa_supported(isas[i].isa)) {
            fprintf(stderr, PROG ": --isa: %s: not supported by this CPU\n", name);
            return EXIT_USAGE;
        }
        *isa = isas[i].isa;
        return 0;
    }
    return usage_error("--isa: expected auto, avx512, avx2 or interp, not '%s'", name);
}

/* The whole file, or NULL with a message printed. */
static char *read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char *buf = NULL;
    if (fd < 0 || fstat(fd, &st) < 0) {
        fprintf(stderr, PROG ": cannot read: %s: %s\n", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > MAX_FILE_BYTES) {
        fprintf(stderr, PROG ": cannot read: %s: %s\n", path,
                S_ISREG(st.st_mode) ? "larger than 1 GiB" : "not a regular file");
        goto out;
    }
    buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, PROG ": cannot read: %s: %s\n", path,
                    n < 0 ? strerror(errno) : "file shrank while reading");
            free(buf);
            buf = NULL;
            goto out;
        }
        got += (size_t)n;
    }
    if (!buf)
        fprintf(stderr, PROG ": cannot read: %s: %s\n", path, strerror(ENOMEM));
    *len = got;
out:
    if (fd >= 0)
        close(fd);
    return buf;
}

/* This process image's peak RSS. /proc's VmHWM rather than getrusage: ru_maxrss keeps the
 * high-water mark of the image before execve, so a renderer started by a big parent (a Python
 * benchmark script, say) would report the parent's size. */
static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    struct rusage ru;
    if (kib < 0 && getrusage(RUSAGE_SELF, &ru) == 0)
        kib = ru.ru_maxrss;
    return kib;
}

static void print_timings(const struct options *o, const struct compiled *c, const double *render_s,
                          int repeat)
{
    const struct compile_times *t = &c->times;
    const struct mcode *m = &c->mcode;
    double compile = t->parse + t->dedup + t->regalloc + t->emit;
    fprintf(stderr,
            "{\"isa\": \"%s\", \"size\": %d, \"threads\": %d, \"instructions\": %u, "
            "\"after_dedup\": %u, \"deduped\": %u, \"folded\": %u, \"dead\": %u, "
            "\"registers\": %u, \"spill_slots\": %u, \"spill_stores\": %u, \"reloads\": %u, "
            "\"memory_operands\": %u, \"code_bytes\": %zu, ",
            isa_name(c->eval.isa), o->size, o->threads, c->opt.before, c->opt.after, c->opt.deduped,
            c->opt.folded, c->opt.dead, c->eval.isa == ISA_INTERP ? 0 : jit_registers(c->eval.isa),
            m->n_slots, m->n_stores, m->n_loads, m->n_mem_operands, c->kernel.code_len);
    fprintf(stderr,
            "\"parse_ms\": %.4f, \"dedup_ms\": %.4f, \"regalloc_ms\": %.4f, \"emit_ms\": %.4f, "
            "\"compile_ms\": %.4f, \"render_ms\": [",
            t->parse * 1e3, t->dedup * 1e3, t->regalloc * 1e3, t->emit * 1e3, compile * 1e3);
    for (int i = 0; i < repeat; i++)
        fprintf(stderr, "%s%.3f", i ? ", " : "", render_s[i] * 1e3);
    fprintf(stderr, "], \"peak_rss_kib\": %ld}\n", peak_rss_kib());
}

static int write_image(const struct options *o, const uint8_t *pixels)
{
    bool to_stdout = !o->output || strcmp(o->output, "-") == 0;
    int rc = to_stdout ? pgm_write_fd(STDOUT_FILENO, pixels, o->size)
                       : pgm_write_file(o->output, pixels, o->size);
    if (rc < 0) {
        fprintf(stderr, PROG ": cannot write: %s: %s\n", to_stdout ? "stdout" : o->output,
                strerror(errno));
        return EXIT_RUNTIME;
    }
    return 0;
}

/* Compiles for isa; with --isa auto a JIT that cannot be built (no executable memory in this
 * sandbox, say) falls back to the interpreter. */
static int compile(const struct options *o, const char *text, size_t len, enum render_isa isa,
                   struct compiled *c)
{
    struct vm_parse_error perr;
    char why[256];
    enum compile_status st = compile_program(text, len, isa, c, &perr, why, sizeof why);
    if (st == COMPILE_FAILED && isa != ISA_INTERP && strcmp(o->isa, "auto") == 0) {
        fprintf(stderr, PROG ": %s JIT unavailable (%s); using the interpreter\n", isa_name(isa),
                why);
        compiled_free(c);
        st = compile_program(text, len, ISA_INTERP, c, &perr, why, sizeof why);
    }
    if (st == COMPILE_BAD_PROGRAM) {
        fprintf(stderr, PROG ": %s:%lu: %s\n", o->vm ? o->vm : "<built-in scene>", perr.line,
                perr.msg);
        return EXIT_USAGE;
    }
    if (st == COMPILE_FAILED) {
        fprintf(stderr, PROG ": compile: %s\n", why);
        return EXIT_RUNTIME;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    enum render_isa isa = ISA_INTERP;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc;
    if ((rc = choose_isa(o.isa, &isa)) != 0)
        return rc;

    size_t len = render_scene_vm_len;
    char *text = o.vm ? read_file(o.vm, &len) : NULL;
    if (o.vm && !text)
        return EXIT_USAGE;
    struct compiled c;
    rc = compile(&o, text ? text : render_scene_vm, len, isa, &c);
    free(text);
    uint8_t *pixels = rc == 0 ? malloc((size_t)o.size * (size_t)o.size) : NULL;
    double *render_s = rc == 0 ? calloc((size_t)o.repeat, sizeof *render_s) : NULL;
    if (rc == 0 && (!pixels || !render_s)) {
        fprintf(stderr, PROG ": render: %s\n", strerror(ENOMEM));
        rc = EXIT_RUNTIME;
    }
    for (int i = 0; rc == 0 && i < o.repeat; i++) {
        double t0 = now_seconds();
        if (render_image(&c.eval, o.size, o.threads, pixels) < 0) {
            fprintf(stderr, PROG ": render: %s\n", strerror(errno));
            rc = EXIT_RUNTIME;
        }
        render_s[i] = now_seconds() - t0;
    }
    if (rc == 0)
        rc = write_image(&o, pixels);
    if (rc == 0 && o.timings)
        print_timings(&o, &c, render_s, o.repeat);
    free(pixels);
    free(render_s);
    compiled_free(&c);
    return rc;
}
