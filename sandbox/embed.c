/* Build helper: embed FILE NAME OUTPUT.c writes FILE's bytes as `const unsigned char NAME[]` and
 * `const size_t NAME_size`, so that libsbx carries its init without a path to find it at. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: embed FILE NAME OUTPUT.c\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    FILE *out = fopen(argv[3], "w");
    if (!in || !out) {
        perror(in ? argv[3] : argv[1]);
        return 1;
    }
    fprintf(out, "/* Generated from %s by sandbox/embed.c. */\n#include <stddef.h>\n\n", argv[1]);
    fprintf(out, "extern const unsigned char %s[];\nextern const size_t %s_size;\n", argv[2],
            argv[2]);
    fprintf(out, "const unsigned char %s[] = {\n", argv[2]);
    size_t n = 0;
    int c;
    while ((c = fgetc(in)) != EOF) {
        fprintf(out, "%d,", c);
        if (++n % 32 == 0)
            fputc('\n', out);
    }
    fprintf(out, "};\nconst size_t %s_size = %zu;\n", argv[2], n);
    int failed = ferror(in) || fclose(out) != 0;
    fclose(in);
    if (failed) {
        perror(argv[3]);
        return 1;
    }
    return 0;
}
