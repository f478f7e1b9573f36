/* Container names (docker, podman) and ids (runc, crun): sbxbench-PID-SEQ, unique per process and
 * sample, so that a sample that must be stopped can be found by name, and a killed one never blocks
 * the next. SEQ has a fixed width: a prepared argv is rewritten in place, inside the timed region,
 * without allocating. */
#pragma once

/* A name with SEQ 0, malloc'd; its length never changes. NULL when out of memory. */
char *container_name_new(void);

/* Rewrites name (made by container_name_new) with the next SEQ. */
void container_name_next(char *name);
