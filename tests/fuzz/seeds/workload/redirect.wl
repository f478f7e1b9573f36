summary every operator, quoting and a continuation
param n 1,2,3 in 1..10
param word a,b
label "${n}-${word}"
env LANG=C "X=${word} y" Y='$literal'
cwd /tmp
ro /usr/bin/env ${dir}/cc-unit.c
rw ${tmp}
run sh -c 'echo "$1"; echo err >&2' sh "${n}" 2>&1 < /dev/null \
    | tr a-z A-Z >> ${tmp}/out 2> ${tmp}/err | cat 2>> ${tmp}/e # a comment
expect-stdout ""
throughput 4096
