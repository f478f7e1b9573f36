/* embed-file IN OUT NAME: writes a C file defining NAME (the bytes of IN) and NAME_len, for data
 * that must be part of a binary. A build-time tool; it runs on the build machine. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: embed-file IN OUT NAME\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    FILE *out = in ? fopen(argv[2], "w") : NULL;
    if (!in || !out) {
        perror(in ? argv[2] : argv[1]);
        return 1;
    }
    fprintf(out, "/* Generated from %s by embed-file. */\n#include <stddef.h>\n\n", argv[1]);
    fprintf(out, "const char %s[] = {\n", argv[3]);
    size_t n = 0;
    int c;
    while ((c = getc(in)) != EOF) {
        fprintf(out, "%d,%s", c, ++n % 20 == 0 ? "\n" : "");
    }
    fprintf(out, "0};\nconst size_t %s_len = %zu;\n", argv[3], n);
    int bad = ferror(in) || fclose(out) != 0;
    fclose(in);
    if (bad) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
