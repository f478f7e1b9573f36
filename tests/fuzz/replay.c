/* main for a fuzz target outside libFuzzer: runs the target once on each file named, or on each
 * file of each directory named (in name order). A directory that does not exist is no input. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0, got;
    unsigned char *data = malloc(cap), *exact = NULL;
    while (data && (got = fread(data + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            unsigned char *bigger = realloc(data, cap *= 2);
            if (!bigger)
                free(data);
            data = bigger;
        }
    }
    fclose(f);
    /* An exact-size copy, so that ASan sees a read past the input's end. */
    if (data && (exact = malloc(len ? len : 1)))
        memcpy(exact, data, len);
    free(data);
    if (!exact) {
        fprintf(stderr, "replay: %s: out of memory\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_dir(const char *dir, int *count)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    if (n < 0)
        return errno == ENOENT ? 0 : -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        struct stat st;
        if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(path) < 0)
                rc = -1;
            else
                ++*count;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    int count = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0 && errno == ENOENT)
            continue; /* a target with no regressions yet */
        if (S_ISDIR(st.st_mode))
            rc |= replay_dir(argv[i], &count);
        else if (replay_file(argv[i]) == 0)
            count++;
        else
            rc = 1;
    }
    fprintf(stderr, "replay: %d inputs, none crashed\n", count);
    return rc ? 1 : 0;
}
