/* Configuring the new namespaces from inside: the uid/gid maps of the user namespace, the hostname
 * of the UTS namespace, and the loopback interface of the network namespace. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* path under the caller's /proc: the sandbox's own /proc is of a pid namespace it is not in yet
 * (the template's) when the maps are written. "self" there names whoever opens it. */
static void write_proc(struct sbx *s, const char *step, const char *path, const char *text)
{
    int fd = openat(s->proc_fd, path + strlen("/proc/"), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        child_fail(s, step, path, errno);
    ssize_t n = write(fd, text, strlen(text));
    int err = errno;
    close(fd);
    if (n < 0)
        child_fail(s, step, path, err);
}

/* A process may map its own uid and gid into a user namespace it created without privileges, once
 * setgroups is denied; the sandbox never needs more, and a denied setgroups cannot drop a group a
 * file's permissions rely on. */
void write_setgroups_deny(struct sbx *s)
{
    write_proc(s, "setgroups", "/proc/self/setgroups", "deny");
}

void child_write_maps(struct sbx *s)
{
    /* Nested in the template's user namespace, the sandbox's inherits its "deny". */
    if (s->layer == SBX_NAMESPACES)
        write_proc(s, "setgroups", "/proc/self/setgroups", "deny");
    write_proc(s, "uid_map", "/proc/self/uid_map", s->uid_map);
    write_proc(s, "gid_map", "/proc/self/gid_map", s->gid_map);
}

void child_set_hostname(struct sbx *s)
{
    if (sethostname(s->hostname, strlen(s->hostname)) < 0)
        child_fail(s, "sethostname", s->hostname, errno);
}

int child_loopback_up(const char **step)
{
    /* Any socket reaches the interface ioctls; a unix one needs no protocol family compiled in. */
    int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0) {
        *step = "loopback: socket";
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    ifr.ifr_flags = IFF_UP;
    int rc = ioctl(sock, SIOCSIFFLAGS, &ifr);
    int err = errno;
    close(sock);
    if (rc < 0) {
        *step = "loopback: SIOCSIFFLAGS lo";
        errno = err;
    }
    return rc;
}
