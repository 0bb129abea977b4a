"""testing.FileCheck: each check kind passes and fails where LLVM's FileCheck (and PyTorch's) does."""

from __future__ import annotations

import pytest

from numtorch.testing import FileCheck


def test_passing_checks():
    FileCheck().check("a").check_next("b").check_same("c").run("a\nb c\nd")
    FileCheck().check_dag("b").check_dag("a").check("c").run("a b c")
    FileCheck().check_count("a", 2).check("b").run("a a a b")
    FileCheck().check_regex(r"x\d+").check_not("zz").check("end").run("x12 end")
    FileCheck().check_source_highlighted("f").run("f()")
    FileCheck().run("# CHECK: a\n# CHECK-NEXT: b\n# CHECK-COUNT-2: c", "a\nb c c")


@pytest.mark.parametrize("fc,text,msg", [
    (FileCheck().check("zz"), "a a a", 'Expected to find "zz" but did not find it'),
    (FileCheck().check("a").check_next("c"), "a\nb\nc", r'Expected to not find "\\n" but found it'),
    (FileCheck().check("a").check_not("b").check("c"), "a b c", 'Expected to not find "b" but found it'),
    (FileCheck().check_count("a", 2, exactly=True), "a a a", 'Expected to not find "a" but found it'),
    (FileCheck().check("a").check_same("b"), "a\nb", r'Expected to not find "\\n" but found it'),
    (FileCheck().check("a").check_not("q"), "a q", 'Expected to not find "q" but found it'),
])  # fmt: skip
def test_failures_raise_runtime_error_with_pytorch_text(fc, text, msg):
    with pytest.raises(RuntimeError, match=msg):
        fc.run(text)
