"""Shared fixtures: the repository, the `mibound` command line (the reference), data sets."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import mibound

REPO = pathlib.Path(__file__).resolve().parents[2]


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "training: trains critics in the native library, the same code on every Python; "
        "scripts/python-tests runs these on the newest Python only (-m 'not training' on the others)",
    )


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The command line built from this repository (`cargo build --release`, or $MIBOUND_CLI):
    the reference the Python results are compared with. Missing is a failure, not a skip."""
    path = pathlib.Path(os.environ.get("MIBOUND_CLI", REPO / "target" / "release" / "mibound"))
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it with `cargo build --release` (scripts/python-tests does) or set MIBOUND_CLI")
    return path


def run_cli(cli, *args, check=True):
    """Runs the command line; returns (exit code, stdout, stderr)."""
    p = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"mibound {' '.join(map(str, args))} failed: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_json(cli, x, y, tmp_path, *args):
    """`mibound estimate --json` on x and y written to .npy files."""
    np.save(tmp_path / "x.npy", np.ascontiguousarray(x, dtype=np.float64))
    np.save(tmp_path / "y.npy", np.ascontiguousarray(y, dtype=np.float64))
    _, out, _ = run_cli(cli, "estimate", "--x", tmp_path / "x.npy", "--y", tmp_path / "y.npy", "--json", "--quiet", *args)
    return json.loads(out)


def cli_error(cli, tmp_path, *args):
    """The message the command line prints (after `error: `) for `estimate` with args."""
    x, y = mibound.sample("gaussian", 200, 0, dim=2, mi=0.5)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    code, _, err = run_cli(cli, "estimate", "--x", tmp_path / "x.npy", "--y", tmp_path / "y.npy", "--quiet", *args, check=False)
    assert code == 2, err
    line = err.strip().splitlines()[-1]
    assert line.startswith("error: "), err
    return line[len("error: ") :]


@pytest.fixture(scope="session")
def gaussian():
    """A 2-d correlated Gaussian with 0.5 nats, 600 rows."""
    return mibound.sample("gaussian", 600, 7, dim=2, mi=0.5)
