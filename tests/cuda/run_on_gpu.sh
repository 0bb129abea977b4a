#!/usr/bin/env bash
# The CUDA checks on a real NVIDIA GPU (CI has none and runs tests/cuda under Numba's simulator):
# the tests/cuda suite on the device, then benchmarks/cuda_compare.py beside PyTorch's CUDA.
# Run from the repository root with a Python that has numba-cuda (and torch, for the comparison):
#   bash tests/cuda/run_on_gpu.sh [LOGDIR]
set -u
LOG=${1:-/tmp/numtorch-gpu}
mkdir -p "$LOG"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 NUMBA_CACHE_DIR=${NUMBA_CACHE_DIR:-/tmp/numtorch-numba-cache}
unset NUMBA_ENABLE_CUDASIM
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c "import numba, numpy; from numba import cuda; from importlib.metadata import version; print('numba', numba.__version__, 'numba-cuda', version('numba-cuda'), 'numpy', numpy.__version__, 'cuda', cuda.is_available(), cuda.get_current_device().name)"
python3 -c "import numtorch; assert numtorch.cuda.is_available() and not numtorch.cuda._rt.simulated(); print('numtorch cuda:', numtorch.cuda.get_device_name())"
python3 -c "import numtorch; from numtorch.cuda import _cublas; numtorch.ones(2, 2, device='cuda') @ numtorch.ones(2, 2, device='cuda'); print('GEMM:', _cublas.why())"
JOBS=${JOBS:-12}
timeout -s INT -k 30 ${TEST_TIMEOUT:-300} python3 -m pytest -q --durations=12 -p no:cacheprovider -m "slow or not slow" -n "$JOBS" --dist "${DIST:-loadfile}" tests/cuda \
    -k "not test_cuda_tests_pass_under_the_simulator" -rf --tb=short 2>&1 | tee "$LOG/tests.log" | tail -120
timeout ${BENCH_TIMEOUT:-150} python3 benchmarks/cuda_compare.py 2>&1 | tee "$LOG/bench.log"
if [ -n "${PROFILE:-}" ]; then
    timeout 120 python3 benchmarks/cuda_compare.py --profile > "$LOG/profile.log" 2>&1; grep -A12 "====\|ncalls" "$LOG/profile.log" | head -70
fi
