"""The docs site (mkdocs.yml over docs/) builds with --strict, and README.md stays a front door into it.

A strict build fails on a broken link or anchor, a page missing from nav and a missing snippet (deploy/README.md,
shown by docs/deploy.md): mkdocs.yml's `validation` raises those to warnings, which --strict turns into errors.
The checks below also keep the text true to the tree: every source path a page names exists, every `precedente`
command it names is one, and the README links every page of the site. A build takes about a second.
"""

import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import click
import pytest
import typer
import yaml

from precedente.cli import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_LIMIT = 10 * 1024  # issue 32: a pitch, an install, one example and links; it was 61 KB of changelog


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
    )


def nav_pages() -> list[str]:
    """The pages mkdocs.yml's nav lists (yaml's BaseLoader: the config's !!python/name tag stays a string)."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)  # noqa: S506 (no objects built)

    def walk(node: object) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [page for item in node for page in walk(item)]
        if isinstance(node, dict):
            return [page for value in node.values() for page in walk(value)]
        return []

    return walk(config["nav"])


@cache
def pages() -> dict[Path, str]:
    """Every Markdown text a reader meets: README.md, docs/*.md and deploy/README.md (shown by docs/deploy.md)."""
    paths = [README, ROOT / "deploy" / "README.md", *sorted(DOCS.glob("*.md"))]
    return {path: path.read_text() for path in paths}


def test_site_builds_strict(tmp_path: Path) -> None:
    result = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    deploy = (tmp_path / "site" / "deploy" / "index.html").read_text()
    assert "docker compose up -d" in deploy, "docs/deploy.md no longer shows deploy/README.md"


def test_strict_build_fails_on_a_broken_anchor_and_a_page_missing_from_nav(tmp_path: Path) -> None:
    """The gate bites: a copy of docs/ with a page left out of nav and a link to an anchor that is not there."""
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    (docs / "forgotten.md").write_text("# A page nobody listed\n")
    api = docs / "api.md"
    api.write_text(api.read_text() + "\nSee [the grade](search.md#no-such-section).\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"INHERIT: {ROOT / 'mkdocs.yml'}\ndocs_dir: {docs}\n")
    result = build(config, tmp_path / "site")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "forgotten.md" in output and 'not included in the "nav"' in output
    assert "no-such-section" in output


def test_every_docs_page_is_in_nav_and_every_nav_entry_exists() -> None:
    listed = set(nav_pages())
    present = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}  # docs/reports/ too
    assert listed == present, f"in nav only: {listed - present}; in docs/ only: {present - listed}"


def test_readme_is_a_front_door_that_links_every_page() -> None:
    text = README.read_text()
    assert len(text.encode()) <= README_LIMIT, f"README.md is {len(text.encode())} bytes: move detail into docs/"
    targets = {target.split("#")[0] for target in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in target}
    missing = sorted(target for target in targets if not (ROOT / target).exists())
    assert not missing, f"README.md links to files that do not exist: {missing}"
    unlinked = sorted(page for page in nav_pages() if f"docs/{page}" not in targets)
    assert not unlinked, f"README.md does not link these pages of the site: {unlinked}"
    assert "docs/screenshots/search.png" in targets


SOURCE_PATH = re.compile(r"`((?:services|shared|precedente|bench|tests|deploy)/[\w./-]*[\w/])`")


@pytest.mark.parametrize("path", [README, ROOT / "deploy" / "README.md", *sorted(DOCS.glob("*.md"))], ids=str)
def test_source_paths_the_pages_name_exist(path: Path) -> None:
    """A page that names `shared/stage.py` after it moved sends a newcomer nowhere: the page must move with it."""
    named = set(SOURCE_PATH.findall(pages()[path]))
    missing = sorted(name for name in named if not (ROOT / name).exists())
    assert not missing, f"{path.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_precedente_commands_the_pages_name_exist() -> None:
    """`precedente users add` must be a command and `users` a group holding `add`: what a page tells a reader to
    type is what the CLI (precedente/cli/root.py's Typer app) answers to."""
    root = typer.main.get_command(app)
    commands: dict[str, click.Command] = root.commands  # type: ignore[attr-defined]
    named = {
        (word, sub)
        for text in pages().values()
        for word, sub in re.findall(r"(?:^|[`/])precedente ([a-z][a-z-]+)(?: ([a-z][a-z-]+))?", text, re.MULTILINE)
    }
    assert named, "no command found: the pattern no longer matches how the pages write commands"
    unknown = sorted(word for word, _ in named if word not in commands)
    assert not unknown, f"the pages name commands that do not exist: {unknown}"
    wrong = sorted(
        f"{word} {sub}"
        for word, sub in named
        if sub and isinstance(commands[word], click.Group) and sub not in commands[word].commands
    )
    assert not wrong, f"the pages name subcommands that do not exist: {wrong}"


def test_make_targets_the_readme_names_exist() -> None:
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), flags=re.MULTILINE))
    named = set(re.findall(r"(?:^|`)make ([a-z][\w-]*)", README.read_text(), flags=re.MULTILINE))
    assert {"run", "test", "test-fast"} <= named <= targets
