# cc: one real build action. The host's C compiler builds a fixed translation unit shipped next to
# this file (cc-unit.c: a few hundred lines of ordinary C) at -O2, writing the object and the
# compiler's temporary files into ${tmp}, a scratch directory on a tmpfs, so that no disk write is
# timed. Only the system headers are included, so a sandbox that shows /usr is enough.
summary cc -c -O2 of a fixed 590-line C file into a tmpfs: one build action
ro ${dir}/cc-unit.c
env TMPDIR=${tmp}
run cc -c -O2 -o ${tmp}/cc-unit.o ${dir}/cc-unit.c
