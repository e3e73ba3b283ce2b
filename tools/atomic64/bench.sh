#!/bin/sh
# 64-bit atomic add, native vs emulated (lock table), on lavapipe: kernel_ms of pisa run --json
# Run from the repository root after cargo build --bin pisa; prints kernel_ms per run.
P=${PISA:-target/debug/pisa}
# one llvmpipe thread: a lock holder is never descheduled while others spin (see docs/devices.md)
export LP_NUM_THREADS=${LP_NUM_THREADS:-1}
A="--kernel add --global 65536 --local 64 --arg buf:u64:zeros:1024 --json"
for i in 1 2 3 4 5; do
  n=$($P run tools/atomic64/add.pisa $A | sed 's/.*"kernel_ms":\([0-9.]*\).*/\1/')
  e=$(PISA_SPIRV_OPTIONS=unroll,loop-cap,relaxed,opaque,opaque-push,fma-f64,exact-division,no-int64-atomics $P run tools/atomic64/add.pisa $A | sed 's/.*"kernel_ms":\([0-9.]*\).*/\1/')
  echo "native $n emulated $e"
done
