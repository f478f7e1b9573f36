/* sbx-init: pid 1 of a full sandbox. Embedded in libsbx and executed from a sealed memfd once the
 * command is running; it never touches the filesystem.
 *
 *   sbx-init PID     PID: the command, as the sandbox numbers it; fd 3: where to report
 *
 * It reaps every orphan, forwards the signals it is sent to the command, and when the command is
 * gone writes the command's wait status to fd 3 and exits with the shell's rendering of it (the
 * code, or 128 + the signal): pid 1 cannot die of most signals, so the launcher reads fd 3's report
 * to pass a death by signal on. Its exit takes every other process of the sandbox with it.
 *
 * It runs once per sandbox, so its start-up is part of every run: on x86-64 and arm64 it is built
 * without a C library (a static glibc executable spends some 350 microseconds starting up and
 * exiting; this one 90), talking to the kernel directly. Elsewhere it uses libc. */
#include <linux/prctl.h>
#include <stdint.h>

#define REPORT_FD 3
#define REPORT_MAGIC 0x53425831u /* matches INIT_REPORT_MAGIC in internal.h */
#define SIG_CHLD 17
#define SI_KERNEL_CODE 0x80

#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(SBX_INIT_LIBC)
#define SBX_INIT_NOLIBC 1
#include <asm/unistd.h>
#include <linux/wait.h>

static long sys6(long n, long a, long b, long c, long d, long e)
{
#if defined(__x86_64__)
    long r;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return r;
#else
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
    return x0;
#endif
}

/* The kernel's sigset_t: one bit per signal, 64 of them. */
typedef uint64_t ksigset;
struct ksiginfo {
    int32_t si_signo, si_errno, si_code;
    int32_t pad[29];
};

static _Noreturn void sys_exit(int code)
{
    for (;;)
        sys6(__NR_exit_group, code, 0, 0, 0, 0);
}
#define SYS(n, a, b, c, d) sys6(__NR_##n, (long)(a), (long)(b), (long)(c), (long)(d), 0)
#define SIGNALS_BLOCK(set) SYS(rt_sigprocmask, 0 /* SIG_BLOCK */, set, 0, sizeof(ksigset))
#define SIGNAL_WAIT(set, info) SYS(rt_sigtimedwait, set, info, 0, sizeof(ksigset))
#define REAP(status) SYS(wait4, -1, status, WNOHANG | __WALL, 0)
#define SEND(pid, sig) SYS(kill, pid, sig, 0, 0)
#define REPORT(buf, len) sys6(__NR_pwrite64, REPORT_FD, (long)(buf), (long)(len), 0, 0)
#define DUMPABLE_OFF() SYS(prctl, PR_SET_DUMPABLE, 0, 0, 0)
#define CLOSE(fd) SYS(close, fd, 0, 0, 0)
#define FILL_ALL(set) (*(set) = ~(ksigset)0)
#define ECHILD_ERR (-10) /* -ECHILD, as the kernel returns it */
#define INFO_CODE(info) ((info).si_code)

#else /* another architecture: the C library it is */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
typedef sigset_t ksigset;
struct ksiginfo {
    siginfo_t si;
};
static _Noreturn void sys_exit(int code)
{
    _exit(code);
}
#define SIGNALS_BLOCK(set) sigprocmask(SIG_BLOCK, set, 0)
#define SIGNAL_WAIT(set, info) sigwaitinfo(set, &(info)->si)
#define REAP(status) (waitpid(-1, status, WNOHANG | __WALL) < 0 ? -errno : 0)
#define SEND(pid, sig) kill(pid, sig)
#define REPORT(buf, len) pwrite(REPORT_FD, buf, len, 0)
#define DUMPABLE_OFF() prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
#define CLOSE(fd) close(fd)
#define FILL_ALL(set) sigfillset(set)
#define ECHILD_ERR (-ECHILD)
#define INFO_CODE(info) ((info).si.si_code)
#endif

static _Noreturn void finish(int status)
{
    struct {
        uint32_t magic;
        int32_t status;
    } report = {REPORT_MAGIC, status};
    /* If this fails the launcher sees only the exit code, still right for a normal exit. */
    REPORT(&report, sizeof report);
    int termsig = status & 0x7f;
    sys_exit(termsig == 0 ? (status >> 8) & 0xff : 128 + termsig);
}

static long parse_pid(const char *s)
{
    long n = 0;
    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || n > 100000000)
            return -1;
        n = n * 10 + (*s - '0');
    }
    return n;
}

int init_main(int argc, char **argv);
int init_main(int argc, char **argv)
{
    /* Not dumpable: the command, same uid or not, cannot ptrace the init or read its memory. */
    DUMPABLE_OFF();
    CLOSE(0);
    CLOSE(1);
    long command = argc > 1 ? parse_pid(argv[1]) : -1;
    if (command <= 0)
        sys_exit(125);

    /* Every signal stays blocked (the launcher blocked them before exec), so sigwaitinfo takes them
     * all; a blocked signal reaches pid 1 even without a handler. */
    ksigset all;
    FILL_ALL(&all);
    SIGNALS_BLOCK(&all);
    for (;;) {
        int status = 0;
        long pid;
        while ((pid = REAP(&status)) > 0)
            if (pid == command)
                finish(status);
        if (pid == ECHILD_ERR)
            sys_exit(125); /* the command is not our child: cannot happen, but never spin */
        struct ksiginfo info;
        long sig = SIGNAL_WAIT(&all, &info);
        if (sig <= 0 || sig == SIG_CHLD)
            continue;
        /* A terminal's signals (SI_KERNEL) went to the command's process group already. */
        if (INFO_CODE(info) == SI_KERNEL_CODE)
            continue;
        SEND(command, sig);
    }
}

#if defined(SBX_INIT_NOLIBC) && defined(__x86_64__)
__asm__(".text\n.global _start\n_start:\n"
        "  xor %rbp, %rbp\n"
        "  mov (%rsp), %rdi\n"  /* argc */
        "  lea 8(%rsp), %rsi\n" /* argv */
        "  and $-16, %rsp\n"
        "  call init_main\n"
        "  mov %eax, %edi\n"
        "  mov $231, %eax\n" /* exit_group */
        "  syscall\n");
#elif defined(SBX_INIT_NOLIBC)
__asm__(".text\n.global _start\n_start:\n"
        "  ldr x0, [sp]\n"
        "  add x1, sp, #8\n"
        "  bl init_main\n"
        "  mov x8, #94\n" /* exit_group */
        "  svc 0\n");
#else
int main(int argc, char **argv)
{
    return init_main(argc, argv);
}
#endif
