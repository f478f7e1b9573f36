param x ${nosuch}
run true ; echo `x` && (y) * ? \
