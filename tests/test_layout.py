"""The shape of the code, read with ast: test modules stand alone (what several need lives in tests/helpers/),
and each service is its own package (what two services share lives in shared/)."""

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
SERVICES = REPO / "services"
INSTALLED_UNDER_PRECEDENTE = ("shared", "services")


def module_name(path: Path) -> str:
    """The dotted name a file under the checkout is imported by (tests.e2e.test_cli, precedente.services.search.app: the
    folders shared/ and services/ install as precedente.shared and precedente.services)."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[0] in INSTALLED_UNDER_PRECEDENTE:
        parts.insert(0, "precedente")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> Iterator[tuple[int, str]]:
    return imports_of(path.read_text(encoding="utf-8"), module_name(path), is_package=path.name == "__init__.py")


def imports_of(source: str, module: str, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """(line, module) for every module this source imports, relative imports resolved, `from package import
    module` as package.module too; importlib.import_module("...") calls with a literal name count."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            name = ".".join([*base, node.module] if node.module else base)
            yield node.lineno, name
            for alias in node.names:
                yield node.lineno, f"{name}.{alias.name}"
        elif (
            isinstance(node, ast.Call)
            and (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "node_modules" not in p.parts)


def test_the_walk_sees_every_form_of_import() -> None:
    """The checker itself: absolute, relative, `from package import module` and import_module() forms."""
    source = (
        "import tests.e2e.test_a\nfrom tests.e2e.test_b import x\nfrom . import test_c\nfrom .test_d import y\n"
        "from ..helpers import pdfs\nimport importlib\nimportlib.import_module('tests.e2e.test_e')\n"
        "def late():\n    from precedente.services.search import app\n"
    )
    found = {name for _, name in imports_of(source, "tests.e2e.test_sample")}
    for name in ("tests.e2e.test_a", "tests.e2e.test_b", "tests.e2e.test_c", "tests.e2e.test_d", "tests.e2e.test_e"):
        assert name in found, (name, found)
    assert {"tests.helpers.pdfs", "precedente.services.search.app"} <= found
    relative = {name for _, name in imports_of("from ..search import x", "precedente.services.annotator.fields")}
    assert "precedente.services.search.x" in relative


def test_no_module_of_tests_imports_a_test_module() -> None:
    """A test module is run, not imported: what two of them share goes into tests/helpers/ (or a fixture)."""
    test_modules = {module_name(p) for p in python_files(TESTS) if p.name.startswith("test_")}
    offences = [
        f"{path.relative_to(REPO)}:{line} imports {name}"
        for path in python_files(TESTS)
        for line, name in imported(path)
        if name in test_modules and name != module_name(path)
    ]
    assert not offences, "\n".join(offences)


def test_helpers_live_in_tests_helpers_not_loose_at_the_root() -> None:
    loose = [p.name for p in TESTS.glob("*.py") if p.name != "conftest.py" and not p.name.startswith("test_")]
    assert not loose, f"helper modules at tests/ root (move them into tests/helpers/): {loose}"


def test_no_service_imports_another_service() -> None:
    """services/X may import precedente.shared.* and its own package, never services/Y: a service deploys alone."""
    services = {p.name for p in SERVICES.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"extractor", "search"} <= services, services
    offences = []
    for service in sorted(services):
        for path in python_files(SERVICES / service):
            for line, name in imported(path):
                parts = name.split(".")
                other = parts[2] if parts[:2] == ["precedente", "services"] and len(parts) > 2 else None
                if other in services and other != service:
                    offences.append(f"{path.relative_to(REPO)}:{line} imports {name}")
    assert not offences, "\n".join(sorted(set(offences)))


def test_only_precedente_is_imported_and_installed() -> None:
    """The distribution claims one import name (issue 32): no module imports shared.* or services.* (the folders' own
    names, which resolve only from the checkout's root and would load a second copy of a module beside its precedente.*
    one), and pyproject's package list is every package folder, mapped under precedente."""
    roots = ("bench", "precedente", "services", "shared", "tests")
    offences = [
        f"{path.relative_to(REPO)}:{line} imports {name}"
        for root in roots
        for path in python_files(REPO / root)
        for line, name in imported(path)
        if name.split(".")[0] in INSTALLED_UNDER_PRECEDENTE
    ]
    assert not offences, "\n".join(offences)
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    on_disk = {
        module_name(init.parent / "__init__.py")
        for root in ("precedente", *INSTALLED_UNDER_PRECEDENTE)
        for init in (REPO / root).rglob("__init__.py")
        if "node_modules" not in init.parts
    }
    assert set(config["packages"]) == on_disk
    assert config["package-dir"] == {f"precedente.{name}": name for name in INSTALLED_UNDER_PRECEDENTE}


def test_a_module_is_one_xdist_group_and_under_loadgroup_its_node_id_says_so(request: pytest.FixtureRequest) -> None:
    """`make test` runs --dist loadgroup so that a module's stack stays on one worker: the module's group is marked,
    and under loadgroup it reaches the node id xdist schedules by (tests/conftest.py writes it; pytest-xdist's own
    write went unread under pytest 9)."""
    marker = request.node.get_closest_marker("xdist_group")
    assert marker is not None and marker.args[0] == "tests/test_layout.py"
    if getattr(request.config.option, "loadgroup", False):
        assert request.node.nodeid.endswith("@tests/test_layout.py")
