"""ThroughputBenchmark: run a module from several calling threads over stored inputs and report
latency and throughput, as ``torch.utils.throughput_benchmark`` (whose core is C++ there)."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass


def format_time(time_us=None, time_ms=None, time_s=None) -> str:
    """A duration in the largest unit that keeps it >= 1 (``s``, ``ms`` or ``us``).

    >>> format_time(time_ms=1500.0)
    '1.500s'
    """
    if sum([time_us is not None, time_ms is not None, time_s is not None]) != 1:
        raise AssertionError("Expected only one of time_us, time_ms, time_s is given.")
    if time_us is None:
        time_us = time_ms * 1e3 if time_ms is not None else time_s * 1e6
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


@dataclass
class BenchmarkConfig:
    num_calling_threads: int = 1
    num_warmup_iters: int = 10
    num_iters: int = 100
    profiler_output_path: str = ""


class ExecutionStats:
    """What ``ThroughputBenchmark.benchmark`` measured."""

    def __init__(self, latency_avg_ms: float, num_iters: int, benchmark_config: BenchmarkConfig) -> None:
        self._latency_avg_ms, self._num_iters = latency_avg_ms, num_iters
        self.benchmark_config = benchmark_config

    @property
    def latency_avg_ms(self) -> float:
        return self._latency_avg_ms

    @property
    def num_iters(self) -> int:
        return self._num_iters

    @property
    def iters_per_second(self) -> float:
        """Iterations per second across all calling threads."""
        return self.num_iters / self.total_time_seconds

    @property
    def total_time_seconds(self) -> float:
        return self.num_iters * (self.latency_avg_ms / 1000.0) / self.benchmark_config.num_calling_threads

    def __str__(self) -> str:
        return "\n".join([
            "Average latency per example: " + format_time(time_ms=self.latency_avg_ms),
            f"Total number of iterations: {self.num_iters}",
            f"Total number of iterations per second (across all threads): {self.iters_per_second:.2f}",
            "Total time: " + format_time(time_s=self.total_time_seconds),
        ])  # fmt: skip


class ThroughputBenchmark:
    """Call ``module`` on inputs given by ``add_input`` from ``num_calling_threads`` threads.

    >>> bench = ThroughputBenchmark(numtorch.nn.Linear(2, 2))
    >>> bench.add_input(numtorch.ones(1, 2))
    >>> bench.benchmark(num_warmup_iters=1, num_iters=4).num_iters
    4
    """

    def __init__(self, module) -> None:
        self._module = module
        self._inputs: list = []

    def run_once(self, *args, **kwargs):
        """Run the module once on these arguments and return its output."""
        return self._module(*args, **kwargs)

    def add_input(self, *args, **kwargs) -> None:
        """Store one input; each benchmark call picks stored inputs at random."""
        self._inputs.append((args, kwargs))

    def benchmark(self, num_calling_threads=1, num_warmup_iters=10, num_iters=100, profiler_output_path=""):
        """Run ``num_warmup_iters`` per thread, then ``num_iters`` shared by all threads; time them."""
        if not self._inputs:
            raise RuntimeError("Please provide benchmark inputs.Did you forget to call add_input()? ")
        config = BenchmarkConfig(num_calling_threads, num_warmup_iters, num_iters, profiler_output_path)
        lock = threading.Lock()
        done = [0]
        latencies: list = []
        start = threading.Barrier(num_calling_threads)

        def worker(seed):
            rng = random.Random(seed)
            for _ in range(num_warmup_iters):
                a, k = rng.choice(self._inputs)
                self._module(*a, **k)
            start.wait()
            while True:
                with lock:
                    if done[0] >= num_iters:
                        return
                    done[0] += 1
                a, k = rng.choice(self._inputs)
                t = time.perf_counter()
                self._module(*a, **k)
                dt = time.perf_counter() - t
                with lock:
                    latencies.append(dt)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(num_calling_threads)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        avg_ms = 1000.0 * sum(latencies) / max(len(latencies), 1)
        return ExecutionStats(avg_ms, len(latencies), config)
