#!/usr/bin/python3
"""Turns a file into a C source defining `const char NAME[]` (NUL-terminated) and `const size_t NAME_len`,
so data the binary needs at run time is part of it. usage: embed.py INPUT OUTPUT NAME"""
import sys


def main():
    src, out, name = sys.argv[1:4]
    data = open(src, "rb").read()
    with open(out, "w") as f:
        f.write(f"/* Generated from {src.rsplit('/', 1)[-1]} by scripts/embed.py. Do not edit. */\n")
        f.write("#include <stddef.h>\n")
        f.write(f"extern const char {name}[];\nextern const size_t {name}_len;\n")
        f.write(f"const char {name}[] = {{\n")
        for i in range(0, len(data), 16):
            f.write("    " + ", ".join(f"0x{b:02x}" for b in data[i:i + 16]) + ",\n")
        f.write("    0x00\n};\n")
        f.write(f"const size_t {name}_len = {len(data)};\n")


if __name__ == "__main__":
    main()
