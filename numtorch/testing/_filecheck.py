"""FileCheck: LLVM-FileCheck-style assertions over a string (PyTorch's ``torch.testing.FileCheck``,
used to check printed graphs, reprs and logs).

# Note [FileCheck matching]
# Checks run in order from a cursor: CHECK finds its text after the cursor and moves the cursor
# past it; CHECK-NEXT / CHECK-SAME must match on the next / the same line; CHECK-COUNT finds n
# occurrences in turn (``exactly``: and no more before the next check); a run of CHECK-DAG matches
# in any order after the cursor; CHECK-NOT must not occur between the previous and the next match.
"""

from __future__ import annotations

import re


class FileCheck:
    """Build checks with the ``check*`` methods, then ``run`` them over a string.

    >>> FileCheck().check("def").check_next("return").check_not("raise").run("def f():\\nreturn 1")
    """

    def __init__(self) -> None:
        self._checks: list = []

    def _add(self, kind: str, text: str, count: int = 1, exactly: bool = False):
        self._checks.append((kind, text, count, exactly))
        return self

    def check(self, s: str):
        return self._add("CHECK", s)

    def check_not(self, s: str):
        return self._add("CHECK-NOT", s)

    def check_same(self, s: str):
        return self._add("CHECK-SAME", s)

    def check_next(self, s: str):
        return self._add("CHECK-NEXT", s)

    def check_count(self, s: str, count: int, exactly: bool = False):
        return self._add("CHECK-COUNT", s, count, exactly)

    def check_dag(self, s: str):
        return self._add("CHECK-DAG", s)

    def check_source_highlighted(self, s: str):
        return self._add("CHECK-SOURCE-HIGHLIGHTED", s)

    def check_regex(self, s: str):
        return self._add("CHECK-REGEX", s)

    def run(self, checks_file: str, test_file: str | None = None) -> None:
        """Run the checks over ``checks_file`` (a string); with two arguments, read ``# CHECK:``-style
        lines from the first and run them over the second."""
        if test_file is not None:
            fc = FileCheck()
            for m in re.finditer(r"#\s*(CHECK(?:-[A-Z]+)?)(?:-(\d+))?\s*:\s*(.*)", checks_file):
                kind, n, text = m.group(1), m.group(2), m.group(3).rstrip()
                fc._add(kind, text, int(n) if n else 1, bool(n))
            return fc.run(test_file)
        _Runner(checks_file).run(self._checks)


class _Runner:
    def __init__(self, text: str) -> None:
        self.text, self.pos, self.prev = text, 0, 0

    def fail(self, msg: str, kind: str, pat: str, at: int, width: int = 1):
        line_start = self.text.rfind("\n", 0, at) + 1
        line_end = self.text.find("\n", at)
        line = self.text[line_start : line_end if line_end >= 0 else None]
        raise RuntimeError(f"{msg}\n{line}\n{' ' * (at - line_start)}{'~' * max(width, 1)} <--- HERE\nFrom {kind}: {pat}\n")

    def find(self, kind, pat, start):
        if kind == "CHECK-REGEX":
            m = re.compile(pat).search(self.text, start)
            return (m.start(), m.end()) if m else None
        i = self.text.find(pat, start)
        return (i, i + len(pat)) if i >= 0 else None

    def need(self, kind, pat, start):
        hit = self.find(kind, pat, start)
        if hit is None:
            self.fail(f'Expected to find "{pat}" but did not find it\nSearched string:', kind, pat, start, len(pat))
        return hit

    def run(self, checks) -> None:
        nots: list = []
        i = 0
        while i < len(checks):
            kind, pat, count, exactly = checks[i]
            if kind == "CHECK-NOT":
                nots.append(pat)
                i += 1
                continue
            if kind == "CHECK-DAG":
                group = []
                while i < len(checks) and checks[i][0] == "CHECK-DAG":
                    group.append(checks[i][1])
                    i += 1
                hits = [self.need("CHECK-DAG", p, self.pos) for p in group]
                self.advance(nots, min(h[0] for h in hits), max(h[1] for h in hits))
                nots = []
                continue
            start, end = self.match(kind, pat, count, exactly, checks[i + 1 :])
            self.advance(nots, start, end)
            nots = []
            i += 1
        self.advance(nots, len(self.text), len(self.text))

    def match(self, kind, pat, count, exactly, rest):
        if kind == "CHECK-COUNT":
            start = end = self.pos
            first = None
            for _ in range(count):
                start, end = self.need(kind, pat, end)
                first = start if first is None else first
            if exactly:
                stop = self.next_match_start(rest, end)
                extra = self.text.find(pat, end, stop)
                if extra >= 0:
                    self.fail(f'Expected to not find "{pat}" but found it', "CHECK-NOT", pat, extra, len(pat))
            return first, end
        start, end = self.need(kind, pat, self.pos)
        between = self.text[self.pos : start]
        if kind == "CHECK-NEXT" and between.count("\n") != 1:
            self.fail('Expected to not find "\\n" but found it' if between.count("\n") > 1 else
                      f'Expected to find "{pat}" on the next line', kind, pat, start, len(pat))  # fmt: skip
        if kind == "CHECK-SAME" and "\n" in between:
            self.fail('Expected to not find "\\n" but found it', kind, pat, self.pos + between.index("\n"))
        return start, end

    def next_match_start(self, rest, start) -> int:
        for kind, pat, _, _ in rest:
            if kind != "CHECK-NOT":
                hit = self.find(kind, pat, start)
                return hit[0] if hit else len(self.text)
        return len(self.text)

    def advance(self, nots, start, end) -> None:
        for pat in nots:
            j = self.text.find(pat, self.pos, start)
            if j >= 0:
                self.fail(f'Expected to not find "{pat}" but found it', "CHECK-NOT", pat, j, len(pat))
        self.prev, self.pos = start, end
