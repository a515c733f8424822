"""The stub (mibound/_native.pyi) matches the compiled module: the same functions, each with
the same parameters in the same order and the same ones optional, and the same constants."""

import ast
import inspect
import pathlib

import mibound
from mibound import _native

STUB = pathlib.Path(mibound.__file__).with_name("_native.pyi")


def stub_functions():
    tree = ast.parse(STUB.read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            args = node.args.args
            optional = {a.arg for a in args[len(args) - len(node.args.defaults) :]}
            out[node.name] = [(a.arg, a.arg in optional) for a in args]
    return out


def stub_constants():
    tree = ast.parse(STUB.read_text())
    return {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and not n.target.id.startswith("_Float")}


def test_every_native_function_has_its_real_signature_in_the_stub():
    stub = stub_functions()
    native = {n for n, f in vars(_native).items() if callable(f) and not isinstance(f, type) and not n.startswith("__")}
    assert set(stub) == native
    for name, params in stub.items():
        sig = inspect.signature(getattr(_native, name))
        real = [(p.name, p.default is not inspect.Parameter.empty) for p in sig.parameters.values()]
        assert real == params, f"{name}: the stub says {params}, the module {real}"


def test_the_stub_declares_the_modules_constants():
    native = {
        n for n, v in vars(_native).items()
        if isinstance(v, (str, list, int, float)) and not isinstance(v, bool) and not n.startswith("__")
    }
    assert stub_constants() - {"__version__"} == native
    assert "__version__" in stub_constants()


def test_the_options_keys_are_the_defaults_keys():
    tree = ast.parse(STUB.read_text())
    options = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Options")
    keys = [n.target.id for n in options.body if isinstance(n, ast.AnnAssign)]
    assert keys == list(_native.defaults())
