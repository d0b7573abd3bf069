"""The search service's layout holds: app.py only wires, routes write no SQL, and nothing in the service imports
the extractor (what both need to know about file formats and unreadable input lives in shared/)."""

import ast
from pathlib import Path

SEARCH = Path(__file__).resolve().parents[3] / "services" / "search"
SQL_WORDS = ("SELECT ", "INSERT ", "UPDATE ", "DELETE FROM")


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_search_module_imports_the_extractor() -> None:
    offenders = {
        str(path.relative_to(SEARCH)): sorted(
            m for m in imported_modules(path) if m.startswith("precedente.services.extractor")
        )
        for path in SEARCH.rglob("*.py")
    }
    assert {name: mods for name, mods in offenders.items() if mods} == {}


def test_app_defines_no_route() -> None:
    tree = ast.parse((SEARCH / "app.py").read_text())
    decorators = [
        ast.unparse(d) for node in ast.walk(tree) if isinstance(node, ast.AsyncFunctionDef) for d in node.decorator_list
    ]
    assert all(not d.startswith(("app.", "router.")) for d in decorators), decorators


def test_routers_hold_no_sql() -> None:
    for path in (SEARCH / "routers").glob("*.py"):
        strings = [
            node.value
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        ]
        assert not [s for s in strings if any(word in s for word in SQL_WORDS)], path.name


def test_every_router_is_included() -> None:
    from precedente.services.search.app import create_app
    from precedente.shared.settings import Settings

    app = create_app(Settings.model_construct())
    paths = set(app.openapi()["paths"])
    for expected in ("/search", "/documents", "/documents/{document_id}", "/documents/{document_id}/status"):
        assert expected in paths
    for expected in ("/documents/{document_id}/access", "/review", "/audit", "/health", "/status", "/auth/login"):
        assert expected in paths
    assert app.url_path_for("metrics") == "/metrics"  # not in the schema, but served
