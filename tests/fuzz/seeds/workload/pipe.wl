# pipe: a writer and a reader connected by a pipe, both inside the mechanism. The writer sends
# --pipe-bytes bytes in writes of one buffer size; the reader reads with the same size and checks
# every byte and the count, failing the sample on a short or corrupted transfer. One case per size
# in --pipe-sizes; the results report the throughput.
summary writer | reader moving --pipe-bytes through a pipe, one case per --pipe-sizes buffer size
param buffer ${pipe_sizes} in 1..16777216
param bytes ${pipe_bytes} in 1..1125899906842624
label ${buffer}
ro ${exe_dir}/sbx-pipe
run ${exe_dir}/sbx-pipe write ${buffer} ${bytes} | ${exe_dir}/sbx-pipe read ${buffer} ${bytes}
expect-stdout "${bytes} bytes verified"
throughput ${bytes}
