/* hostinfo: what the results depend on besides the code: host, kernel, CPU, and the versions of the
 * tools the mechanisms use. */
#pragma once

#include <jansson.h>

/* A new JSON object: host, kernel, os, cpu_model, cpu_flags, cores, memory_kb, uid, tools{}. */
json_t *hostinfo_json(void);
