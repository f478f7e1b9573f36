/* Privileges: every capability dropped (bounding, ambient, inheritable, permitted, effective) but
 * those asked for, and no_new_privs, so that nothing the command executes can gain any back.
 *
 * The cap_t is built once by privs_prepare; the child only makes the prctl and capset calls, which
 * libcap issues without allocating. */
#include <errno.h>
#include <sys/prctl.h>

#include "sandbox/internal.h"

int privs_prepare(struct sbx *s, char *const cap_add[], struct sbx_error *e)
{
    s->last_cap = cap_max_bits() - 1;
    if (s->last_cap < 0 || s->last_cap > 63)
        return sbx_errf(e, "capabilities: the kernel reports %d of them", (int)s->last_cap + 1);
    s->caps = cap_init();
    if (!s->caps)
        return sbx_err(e, "capabilities", NULL, errno);
    s->keep_caps = 0;
    for (size_t i = 0; cap_add && cap_add[i]; i++) {
        cap_value_t v;
        if (cap_from_name(cap_add[i], &v) < 0 || v > s->last_cap)
            return sbx_errf(e, "capabilities: %s: not known to this kernel", cap_add[i]);
        /* Inheritable as well as permitted, so that ambient can carry it through execve. */
        if (cap_set_flag(s->caps, CAP_PERMITTED, 1, &v, CAP_SET) < 0 ||
            cap_set_flag(s->caps, CAP_EFFECTIVE, 1, &v, CAP_SET) < 0 ||
            cap_set_flag(s->caps, CAP_INHERITABLE, 1, &v, CAP_SET) < 0)
            return sbx_err(e, "capabilities", cap_add[i], errno);
        s->keep_caps |= 1ULL << v;
    }
    return 0;
}

void child_drop_privileges(struct sbx *s)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        child_fail(s, "no_new_privs", NULL, errno);
    /* The bounding set first: dropping from it needs CAP_SETPCAP, which the capset below removes.
     */
    for (cap_value_t c = 0; c <= s->last_cap; c++) {
        if (s->keep_caps & (1ULL << c))
            continue;
        if (cap_drop_bound(c) < 0 && errno != EINVAL)
            child_fail(s, "capabilities: bounding set", NULL, errno);
    }
    if (cap_reset_ambient() < 0 && errno != EINVAL)
        child_fail(s, "capabilities: ambient set", NULL, errno);
    if (cap_set_proc(s->caps) < 0)
        child_fail(s, "capabilities: capset", NULL, errno);
    for (cap_value_t c = 0; c <= s->last_cap; c++) {
        if ((s->keep_caps & (1ULL << c)) && cap_set_ambient(c, CAP_SET) < 0)
            child_fail(s, "capabilities: ambient set", NULL, errno);
    }
}
