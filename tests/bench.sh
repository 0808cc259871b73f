#!/bin/sh
# make bench: run every benchmark script in tests/bench/ against the release build.
# Benchmarks print figures (and ratios measured side by side in one run); they never fail
# on timing.  Each script gets VXRR_BIN (programs) and VXRR_KERNELS (example kernels).
set -u
cd "$(dirname "$0")/.."
export VXRR_BIN="$PWD/build/bin" VXRR_KERNELS="$PWD/build/kernels"
status=0
for b in tests/bench/*.sh; do
    [ -f "$b" ] || continue
    echo "=== $(basename "$b" .sh)"
    sh "$b" || { echo "bench $b failed (exit $?)"; status=1; }
done
exit $status
