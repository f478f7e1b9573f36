/* sbx-probe: runs inside `sbxbench exec` and checks, from the inside, what the sandbox promises.
 *
 *   sbx-probe CHECK [ARGS] [, CHECK [ARGS]]...
 *
 * Each check prints "ok CHECK" or "FAIL CHECK: why" and the probe exits 1 if any failed. Some
 * "checks" are actions instead (exit, signal, orphan, hang) for the driver, tests/sandbox/exec.py.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static int failures;

static void report(const char *check, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(const char *check, bool ok, const char *fmt, ...)
{
    if (ok) {
        printf("ok %s\n", check);
        return;
    }
    failures++;
    printf("FAIL %s: ", check);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* Interfaces: exactly the ones named (comma-separated), each up. */
static void check_interfaces(const char *want)
{
    struct if_nameindex *list = if_nameindex();
    if (!list) {
        report("interfaces", false, "if_nameindex: %s", strerror(errno));
        return;
    }
    char seen[512] = "";
    int sock = socket(AF_UNIX, SOCK_DGRAM, 0);
    bool all_up = true;
    for (struct if_nameindex *i = list; i->if_name; i++) {
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%s%s", n ? "," : "", i->if_name);
        struct ifreq ifr = {0};
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", i->if_name);
        if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0 || !(ifr.ifr_flags & IFF_UP))
            all_up = false;
    }
    close(sock);
    if_freenameindex(list);
    report("interfaces", strcmp(seen, want) == 0 && all_up, "have %s (all up: %s), want %s up",
           seen, all_up ? "yes" : "no", want);
}

/* The host has more interfaces than lo. */
static void check_host_net(void)
{
    struct if_nameindex *list = if_nameindex();
    int n = 0;
    for (struct if_nameindex *i = list; list && i->if_name; i++)
        n++;
    if (list)
        if_freenameindex(list);
    report("host-net", n > 1, "only %d interface(s)", n);
}

/* Only the sandbox's processes are visible; a host pid can be neither seen nor signalled. */
static void check_pids(const char *host_pid_arg)
{
    pid_t host_pid = (pid_t)atoi(host_pid_arg);
    DIR *d = opendir("/proc");
    int count = 0;
    bool host_seen = false;
    for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        count++;
        host_seen |= pid == host_pid;
    }
    if (d)
        closedir(d);
    report("pids-visible", d && count > 0 && count <= 4 && !host_seen,
           "%d processes visible in /proc%s", count, host_seen ? ", the host pid among them" : "");
    errno = 0;
    int rc = kill(host_pid, SIGTERM);
    report("pids-unsignalable", rc < 0 && errno == ESRCH, "kill(%d, SIGTERM) = %d (%s)",
           (int)host_pid, rc, strerror(errno));
    report("pid", getpid() > 1 && getpid() < 10, "getpid() = %d", (int)getpid());
}

static void check_absent(const char *path)
{
    struct stat st;
    errno = 0;
    int rc = lstat(path, &st);
    char name[256];
    snprintf(name, sizeof name, "absent %s", path);
    report(name, rc < 0 && errno == ENOENT, "lstat = %d (%s)", rc, strerror(errno));
}

static void check_readonly(const char *dir)
{
    char path[512], name[512];
    snprintf(path, sizeof path, "%s/.sbx-probe-%d", strcmp(dir, "/") ? dir : "", (int)getpid());
    snprintf(name, sizeof name, "readonly %s", dir);
    errno = 0;
    int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
    report(name, fd < 0 && errno == EROFS, "creating %s: %s", path,
           fd >= 0 ? "succeeded" : strerror(errno));
}

static void check_writable(const char *dir)
{
    char path[512], name[512];
    snprintf(path, sizeof path, "%s/.sbx-probe-%d", dir, (int)getpid());
    snprintf(name, sizeof name, "writable %s", dir);
    int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
    bool ok = fd >= 0 && write(fd, "x", 1) == 1;
    int err = errno;
    if (fd >= 0)
        close(fd);
    unlink(path);
    report(name, ok, "creating %s: %s", path, strerror(err));
}

static const char *status_field(const char *key, char *buf, size_t len)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    buf[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        size_t k = strlen(key);
        if (strncmp(line, key, k) == 0 && line[k] == ':') {
            const char *v = line + k + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            snprintf(buf, len, "%s", v);
            buf[strcspn(buf, "\n")] = '\0';
        }
    }
    if (f)
        fclose(f);
    return buf;
}

/* KEY=VALUE: a line of /proc/self/status. */
static void check_status(const char *kv)
{
    char key[64], buf[128];
    const char *eq = strchr(kv, '=');
    if (!eq) {
        report(kv, false, "expected KEY=VALUE");
        return;
    }
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
    status_field(key, buf, sizeof buf);
    char name[160];
    snprintf(name, sizeof name, "status %s", kv);
    report(name, strcmp(buf, eq + 1) == 0, "%s is %s", key, buf);
}

/* NAME:ERRNO: the syscall fails with that errno number. Arguments are zeros (or, where a zero
 * would let the kernel say the same thing as the filter, something the kernel answers otherwise).
 */
static void check_denied(const char *spec)
{
    char name[64];
    const char *colon = strchr(spec, ':');
    if (!colon) {
        report(spec, false, "expected NAME:ERRNO");
        return;
    }
    snprintf(name, sizeof name, "%.*s", (int)(colon - spec), spec);
    int want = atoi(colon + 1);
    int nr = seccomp_syscall_resolve_name(name);
    char check[128];
    snprintf(check, sizeof check, "denied %s", spec);
    if (nr < 0) {
        printf("skip %s: not a syscall of this architecture\n", check);
        return;
    }
    long a0 = 0, a1 = 0;
    int devnull = open("/dev/null", O_RDWR);
    if (strcmp(name, "ioctl") == 0) {
        a0 = devnull;
        a1 = strchr(colon + 1, ':') ? strtol(strchr(colon + 1, ':') + 1, NULL, 0) : TIOCSTI;
    }
    if (strcmp(name, "clone") == 0)
        a0 = (strchr(colon + 1, ':') ? strtol(strchr(colon + 1, ':') + 1, NULL, 0) : 0) | SIGCHLD;
    errno = 0;
    char byte = 'x';
    long rc =
        strcmp(name, "ioctl") == 0 ? syscall(nr, a0, a1, &byte) : syscall(nr, a0, a1, 0, 0, 0, 0);
    int err = errno;
    if (strcmp(name, "clone") == 0 && rc == 0)
        _exit(0); /* the filter let a child through: it must not run the probe twice */
    if (strcmp(name, "clone") == 0 && rc > 0)
        waitpid((pid_t)rc, NULL, 0);
    if (strcmp(name, "userfaultfd") == 0 && rc >= 0)
        close((int)rc);
    close(devnull);
    report(check, rc == -1 && err == want, "returned %ld, errno %d (%s)", rc, err, strerror(err));
}

static void check_hostname(const char *want)
{
    struct utsname u;
    uname(&u);
    report("hostname", strcmp(u.nodename, want) == 0, "hostname is %s, want %s", u.nodename, want);
}

/* The minimal /dev: the usual nodes work, nothing else is there. */
static void check_dev(void)
{
    int fd = open("/dev/null", O_WRONLY);
    report("dev-null", fd >= 0 && write(fd, "x", 1) == 1, "%s", strerror(errno));
    if (fd >= 0)
        close(fd);
    char c = 1;
    fd = open("/dev/zero", O_RDONLY);
    report("dev-zero", fd >= 0 && read(fd, &c, 1) == 1 && c == 0, "%s", strerror(errno));
    if (fd >= 0)
        close(fd);
    fd = open("/dev/urandom", O_RDONLY);
    report("dev-urandom", fd >= 0 && read(fd, &c, 1) == 1, "%s", strerror(errno));
    if (fd >= 0)
        close(fd);
    DIR *d = opendir("/dev");
    int others = 0;
    static const char *const allowed[] = {".",      "..",      "null",   "zero", "full",
                                          "random", "urandom", "tty",    "shm",  "fd",
                                          "stdin",  "stdout",  "stderr", NULL};
    for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
        bool ok = false;
        for (int i = 0; allowed[i]; i++)
            ok |= strcmp(e->d_name, allowed[i]) == 0;
        if (!ok) {
            printf("unexpected /dev/%s\n", e->d_name);
            others++;
        }
    }
    if (d)
        closedir(d);
    report("dev-minimal", d && others == 0, "%d unexpected entries", others);
}

static void check_env(const char *kv)
{
    const char *eq = strchr(kv, '=');
    char key[128];
    snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - kv) : (int)strlen(kv), kv);
    const char *have = getenv(key);
    char name[256];
    snprintf(name, sizeof name, "env %s", kv);
    if (!eq)
        report(name, have == NULL, "%s is set to %s", key, have);
    else
        report(name, have && strcmp(have, eq + 1) == 0, "%s is %s", key, have ? have : "unset");
}

static void check_cwd(const char *want)
{
    char buf[4096];
    report("cwd", getcwd(buf, sizeof buf) && strcmp(buf, want) == 0, "cwd is %s", buf);
}

static void check_file(const char *spec) /* PATH=CONTENT: the file holds CONTENT */
{
    const char *eq = strchr(spec, '=');
    char path[1024], buf[1024] = "";
    snprintf(path, sizeof path, "%.*s", (int)(eq - spec), spec);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    char name[1100];
    snprintf(name, sizeof name, "file %s", path);
    report(name, n >= 0 && strcmp(buf, eq + 1) == 0, "holds '%s'", buf);
}

static void write_file(const char *spec) /* PATH=CONTENT */
{
    const char *eq = strchr(spec, '=');
    char path[1024];
    snprintf(path, sizeof path, "%.*s", (int)(eq - spec), spec);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    bool ok = fd >= 0 && write(fd, eq + 1, strlen(eq + 1)) == (ssize_t)strlen(eq + 1);
    if (fd >= 0)
        close(fd);
    char name[1100];
    snprintf(name, sizeof name, "write %s", path);
    report(name, ok, "%s", strerror(errno));
}

static void no_core(void)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
}

/* A grandchild in a session of its own, sleeping for TOKEN seconds, left behind on purpose. */
static void leave_orphan(const char *token)
{
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            execl("/bin/sleep", "sleep", token, (char *)NULL);
            _exit(127);
        }
        _exit(0);
    }
    waitpid(child, NULL, 0);
    report("orphan-left", child > 0, "fork: %s", strerror(errno));
}

/* Says it got SIGTERM, then dies of it: the driver can tell a forwarded signal from its own. */
static void on_term(int sig)
{
    static const char msg[] = "got SIGTERM\n";
    if (write(1, msg, sizeof msg - 1) < 0) {
        /* dying anyway */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static _Noreturn void hang(const char *token)
{
    signal(SIGTERM, on_term);
    printf("ready\n");
    fflush(stdout);
    if (fork() == 0) {
        execl("/bin/sleep", "sleep", token, (char *)NULL);
        _exit(127);
    }
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        const char *c = argv[i];
        const char *arg = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(c, "interfaces") == 0)
            check_interfaces(arg), i++;
        else if (strcmp(c, "host-net") == 0)
            check_host_net();
        else if (strcmp(c, "pids") == 0)
            check_pids(arg), i++;
        else if (strcmp(c, "absent") == 0)
            check_absent(arg), i++;
        else if (strcmp(c, "readonly") == 0)
            check_readonly(arg), i++;
        else if (strcmp(c, "writable") == 0)
            check_writable(arg), i++;
        else if (strcmp(c, "status") == 0)
            check_status(arg), i++;
        else if (strcmp(c, "denied") == 0)
            check_denied(arg), i++;
        else if (strcmp(c, "hostname") == 0)
            check_hostname(arg), i++;
        else if (strcmp(c, "dev") == 0)
            check_dev();
        else if (strcmp(c, "env") == 0)
            check_env(arg), i++;
        else if (strcmp(c, "cwd") == 0)
            check_cwd(arg), i++;
        else if (strcmp(c, "file") == 0)
            check_file(arg), i++;
        else if (strcmp(c, "write") == 0)
            write_file(arg), i++;
        else if (strcmp(c, "orphan") == 0)
            leave_orphan(arg), i++;
        else if (strcmp(c, "hang") == 0)
            hang(arg);
        else if (strcmp(c, "exit") == 0)
            exit(atoi(arg));
        else if (strcmp(c, "signal") == 0) {
            no_core();
            fflush(stdout);
            kill(getpid(), atoi(arg));
            pause();
        } else if (strcmp(c, "abort") == 0) {
            no_core();
            fflush(stdout);
            abort();
        } else {
            report(c, false, "unknown check");
        }
    }
    return failures ? 1 : 0;
}
