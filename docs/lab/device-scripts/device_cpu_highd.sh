#!/usr/bin/env bash
# On the lent device machine's CPU (16 cores, which this 2-core VM lacks): issue 37's CPU
# grid, Lloyd per step at n = 10^6, d ∈ {64, 16, 128} (64 first: the target's cells),
# k ∈ {100, 1000}, f32 and f64: this build's certified GEMM against the baseline build's
# (kmeans-cli-base: main before the cpu37 branch) and scikit-learn's Lloyd, all at every
# core, interleaved (bench/cpu_vs_sklearn.py --grid --baseline-cli); each cell's assign and
# update medians beside. ~4 minutes (the same grid with the exact kernel took 208 s).
# Pack first, here: docs/lab/device-scripts/device_cpu_highd.sh --pack BUILD_DIR BASE_CLI
#   (CPU-only builds: BUILD_DIR's kmeans-cli and the baseline's, with their libraries, into
#   .devcarry-highd/pack.tar.xz through device_pack.sh).
# Run: KMS_DEVICE_CARRY=.devcarry-highd OUT=DIR docs/lab/device-scripts/device_cpu_highd.sh
#   → DIR/cpu-highd.txt (machine, versions, the table), DIR/grid.md, DIR/grid.log (cell by cell).
set -uo pipefail
if [ "${1:-}" = --pack ]; then
  base=$(mktemp -d)
  cp "${3:?baseline kmeans-cli}" "$base/kmeans-cli-base"
  KMS_DEVICE_CARRY=.devcarry-highd "$(dirname "$0")/device_pack.sh" "${2:?build directory of the new kmeans-cli}" "$base/kmeans-cli-base"
  rm -rf "$base"
  exit 0
fi
export KMS_DEVICE_CARRY=${KMS_DEVICE_CARRY:-.devcarry-highd}
source "$(dirname "$0")/device_common.sh"
threads=$(nproc)
{
  echo "# $(date -u +%FT%TZ) $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores visible, $threads threads"
  python3 -c "import sklearn, numpy, threadpoolctl; print('scikit-learn', sklearn.__version__, 'numpy', numpy.__version__)"
  "$cli" --version 2>/dev/null | head -1
} 2>&1 | tee "$out/cpu-highd.txt"
start=$(date +%s)
timeout 330 python3 "$root/bench/cpu_vs_sklearn.py" --grid --cli "$cli" --baseline-cli "$work/bin/kmeans-cli-base" \
  --threads "$threads" --n 1000000 --grid-d 64,16,128 --grid-k 100,1000 --iterations 5 --repeats 2 \
  --out "$out/grid.md" 2> "$out/grid.log" | grep "^|" | tee -a "$out/cpu-highd.txt"
echo "grid: exit ${PIPESTATUS[0]}, $(( $(date +%s) - start )) s (cells done: $(grep -c "'d':" "$out/grid.log"))" | tee -a "$out/cpu-highd.txt"
