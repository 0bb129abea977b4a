"""numtorch.jit's TorchScript classes and fuser settings: isinstance targets that nothing matches,
legacy ScriptModule subclasses that run eagerly, honest no-op hints, refusals naming the alternative."""

from __future__ import annotations

import warnings

import pytest

import numtorch
from numtorch import jit


def test_script_module_subclass_runs_eagerly_and_unwraps_attributes():
    class M(jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.n = jit.Attribute(3, int)
            self.lin = numtorch.nn.Linear(2, 2)

        @jit.script_method
        def forward(self, x):
            return x * self.n

    m = M()
    assert m.n == 3 and isinstance(m, numtorch.nn.Module) and "lin.weight" in m.state_dict()
    assert m(numtorch.ones(1)).item() == 3.0
    with pytest.raises(NotImplementedError, match="no TorchScript runtime"):
        m.graph  # noqa: B018


@pytest.mark.parametrize("cls", ["ScriptFunction", "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule",
                                 "ONNXTracedModule", "RecursiveScriptClass", "CompilationUnit"])  # fmt: skip
def test_compiled_classes_cannot_be_built_and_match_nothing(cls):
    c = getattr(jit, cls)
    with pytest.raises(NotImplementedError, match=f"numtorch.jit.{cls} cannot be created"):
        c()
    assert not isinstance(lambda x: x, c) and not isinstance(numtorch.nn.Linear(1, 1), c)


@pytest.mark.parametrize("name", ["export_opnames", "run_frozen_optimizations", "save_jit_module_to_flatbuffer",
                                  "jit_module_from_flatbuffer", "last_executed_optimized_graph"])  # fmt: skip
def test_graph_entry_points_refuse(name):
    with pytest.raises(NotImplementedError, match=f"numtorch.jit.{name} is not supported"):
        getattr(jit, name)(None)


def test_warning_and_error_classes():
    assert issubclass(jit.TracerWarning, Warning) and issubclass(jit.ScriptWarning, Warning)
    jit.TracerWarning.ignore_lib_warnings()
    e = jit.TracingCheckError("graph a != b", None, extra_msg="check")
    assert "Tracing failed sanity checks!\ncheck\nERROR: Graphs differed across invocations!\ngraph a != b" in str(e)


def test_future_and_fork():
    f = jit.fork(lambda a: a + 1, 1)
    assert isinstance(f, jit.Future) and f.done() and jit.wait(f) == 2
    g = jit.Future()
    chained = g.then(lambda fut: fut.wait() * 10)
    assert not chained.done()
    g.set_result(4)
    assert chained.wait() == 40
    with pytest.raises(RuntimeError, match="only be marked completed once"):
        g.set_result(5)
    h = jit.Future()
    h.set_exception(ValueError("bad"))
    with pytest.raises(ValueError, match="bad"):
        h.wait()


def test_fuser_settings_are_validated_and_restored():
    with jit.optimized_execution(False), jit.fuser("fuser2"):
        pass
    with pytest.raises(Exception, match=r"unrecognized fuser option \(name: fuser9\)"):
        with jit.fuser("fuser9"):
            pass
    with pytest.warns(DeprecationWarning, match="set_fusion_strategy` is deprecated"):
        prev = jit.set_fusion_strategy([("DYNAMIC", 3)])
    assert prev == [("STATIC", 2), ("DYNAMIC", 10)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert jit.set_fusion_strategy(prev) == [("DYNAMIC", 3)]
        with pytest.raises(RuntimeError, match="Expected STATIC or DYNAMIC"):
            jit.set_fusion_strategy([("BOTH", 1)])
    jit.enable_onednn_fusion(True)
    assert jit.onednn_fusion_enabled()
    jit.enable_onednn_fusion(False)
    with pytest.warns(UserWarning, match="Only works in script mode"):
        with jit.strict_fusion():
            pass
    assert jit.set_module is numtorch.utils.set_module
    with pytest.raises(NotImplementedError):
        jit.frontend.get_jit_def(lambda: 0)
