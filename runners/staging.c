/* Staging methods: their names and what each promises (docs/scaling.md). */
#include "runners/runner.h"

#include <stdio.h>
#include <string.h>

static const char *const names[N_STAGINGS] = {
    [STAGING_ROOT] = "root",           [STAGING_PER_FILE] = "per-file",
    [STAGING_BIND_EACH] = "bind-each", [STAGING_OPEN_TREE] = "open-tree",
    [STAGING_SYMLINKS] = "symlinks",   [STAGING_OVERLAY] = "overlay",
};

const char *staging_name(enum staging s)
{
    return (unsigned)s < N_STAGINGS ? names[s] : "?";
}

int staging_from_name(const char *name)
{
    for (int s = 0; s < N_STAGINGS; s++)
        if (strcmp(names[s], name) == 0)
            return s;
    return -1;
}

const char *staging_names(void)
{
    static char list[128];
    if (!list[0])
        for (int s = 0; s < N_STAGINGS; s++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", s ? ", " : "",
                     names[s]);
    return list;
}

bool staging_isolates(enum staging s)
{
    /* A symlink forest names only the inputs, but its targets lie in a bind of the whole tree. */
    return s != STAGING_ROOT && s != STAGING_SYMLINKS;
}

bool runner_can_stage(const struct runner *r, const struct action *a, char *why, size_t whylen)
{
    if (!a->inputs_root || a->staging == STAGING_ROOT || (r->stagings & STAGING_BIT(a->staging)))
        return true;
    snprintf(why, whylen, "%s has no '%s' staging (docs/scaling.md)", r->name,
             staging_name(a->staging));
    return false;
}
