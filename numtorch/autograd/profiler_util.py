"""Profiler events and their tables: FunctionEvent (one op call or record_function range),
FunctionEventAvg (events grouped by name) and EventList with ``key_averages`` and ``table``."""

from __future__ import annotations

import json
from collections import defaultdict


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class FunctionEvent:
    """One profiled op call or ``record_function`` range; times in microseconds."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, is_user_annotation=False) -> None:
        self.id, self.name, self.thread = id, name, thread
        self.start_us, self.end_us = start_us, end_us
        self.input_shapes = input_shapes or []
        self.is_user_annotation = is_user_annotation
        self.cpu_children: list = []
        self.cpu_parent = None
        self.count = 1

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"input_shapes={self.input_shapes}>")  # fmt: skip


class FunctionEventAvg:
    """Events of one name (and input shapes, when grouped by them) added up."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None

    def add(self, other) -> FunctionEventAvg:
        if self.key is None:
            self.key, self.input_shapes = other.key, other.input_shapes
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        t = _format_time(self.self_cpu_time_total)
        return f"<FunctionEventAvg key={self.key} self_cpu_time={t} count={self.count}>"


class EventList(list):
    """A list of events with ``key_averages``, ``table``, ``total_average`` and ``export_chrome_trace``."""

    def key_averages(self, group_by_input_shapes: bool = False) -> EventList:
        groups: dict = defaultdict(FunctionEventAvg)
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shapes else e.key
            groups[key].add(e)
        return EventList(groups.values())

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header=None, top_level_events_only: bool = False) -> str:  # fmt: skip
        """The events as PyTorch's profiler table (Name, Self CPU %, Self CPU, CPU total %, ...)."""
        rows = list(self)
        if sort_by is not None:
            keys = {"cpu_time_total": "cpu_time_total", "self_cpu_time_total": "self_cpu_time_total",
                    "cpu_time": "cpu_time", "count": "count"}  # fmt: skip
            if sort_by not in keys:
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            rows.sort(key=lambda e: getattr(e, keys[sort_by]), reverse=True)
        rows = rows[:row_limit] if row_limit and row_limit > 0 else rows
        total = self.self_cpu_time_total or 1.0
        name_w = min(max([len(r.key) for r in rows] + [4]) + 4, max_name_column_width)
        heads = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        widths = [name_w] + [12] * 6
        line = "  ".join("-" * w for w in widths) + "  "

        def fmt(cells):
            return "  ".join(str(c).rjust(w) for c, w in zip(cells, widths)) + "  "

        out = [line, fmt(heads), line]
        for r in rows:
            name = r.key if len(r.key) <= name_w else r.key[: name_w - 3] + "..."
            out.append(fmt([name, f"{100 * r.self_cpu_time_total / total:.2f}%", _format_time(r.self_cpu_time_total),
                            f"{100 * r.cpu_time_total / total:.2f}%", _format_time(r.cpu_time_total),
                            _format_time(r.cpu_time), r.count]))  # fmt: skip
        out += [line, f"Self CPU time total: {_format_time(self.self_cpu_time_total)}", ""]
        return "\n".join(out)

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto) JSON file."""
        events = [{"name": e.name, "ph": "X", "ts": e.start_us, "dur": e.cpu_time_total, "tid": e.thread, "pid": 0,
                   "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                   "args": {"Input Dims": e.input_shapes}} for e in self]  # fmt: skip
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)
