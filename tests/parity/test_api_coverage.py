"""API coverage against torch: writes docs/API_COVERAGE.md and fails when a required name is missing.

The counting lives in tests/parity/api_coverage.py (``python tests/parity/api_coverage.py``
prints the table)."""

from __future__ import annotations

import pathlib

import pytest

import numtorch

from .api_coverage import DELIBERATELY_ABSENT, REQUIRED, markdown, measure, table

torch = pytest.importorskip("torch")

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "API_COVERAGE.md"


@pytest.fixture(scope="module")
def rows():
    return measure(torch, numtorch)


def test_writes_the_coverage_report(rows):
    DOC.write_text(markdown(rows))
    print("\n" + table(rows))
    assert "| **all** |" in DOC.read_text()


@pytest.mark.parametrize("namespace", sorted(REQUIRED))
def test_required_names_are_present(namespace):
    obj = numtorch
    for part in namespace.split(".")[1:]:
        obj = getattr(obj, part)
    missing = [n for n in REQUIRED[namespace] if not hasattr(obj, n)]
    assert not missing, f"{namespace} lacks required names: {missing}"


def test_required_names_exist_in_torch():
    # a required name torch itself lacks would be a typo in the list
    for namespace, names in REQUIRED.items():
        obj = torch
        for part in namespace.split(".")[1:]:
            obj = getattr(obj, part)
        assert all(hasattr(obj, n) for n in names), namespace


def test_deliberately_absent_entries_give_a_reason():
    assert all(len(reason) > 10 for reason in DELIBERATELY_ABSENT.values())
