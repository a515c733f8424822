"""docs/python.md's quick start (and every example in it) runs as a doctest."""

import doctest

from conftest import REPO


def test_the_quick_start_in_docs_python_md_runs():
    result = doctest.testfile(
        str(REPO / "docs" / "python.md"), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 10, result
    assert result.failed == 0, result
