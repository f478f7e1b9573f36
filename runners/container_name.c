#include "runners/container_name.h"

#include <stdio.h>
#include <unistd.h>

#define NAME_FORMAT "sbxbench-%d-%010lu"
#define SEQ_LIMIT 10000000000UL

static unsigned long next_seq;

char *container_name_new(void)
{
    char *name = NULL;
    return asprintf(&name, NAME_FORMAT, (int)getpid(), 0UL) < 0 ? NULL : name;
}

void container_name_next(char *name)
{
    next_seq = (next_seq + 1) % SEQ_LIMIT;
    sprintf(name, NAME_FORMAT, (int)getpid(), next_seq);
}
