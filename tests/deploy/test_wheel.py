"""What runs in production is what is tested: the wheel the image installs, run as compose runs it.

deploy/Dockerfile installs the project with `pip install .` and compose starts each service as its own
`precedente serve NAME`. Tests that run from the source tree cannot see a data file the wheel leaves out
(the search service crashed on every query when services/search/data/legal_concepts.tsv was missing), so
this module builds the wheel from a copy of what the Dockerfile copies, checks it file by file, installs
it (not editable) into a fresh virtual environment and runs the pipeline from that install only.
"""

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from precedente.shared.infra.embedded import EmbeddedBroker, EmbeddedPostgres, free_port
from tests.helpers.samples import DOCS, REPO

pytestmark = pytest.mark.e2e

PACKAGES = ("shared", "services", "precedente")  # what deploy/Dockerfile copies beside pyproject.toml
NOT_SHIPPED = {"gateway"}  # the web page has its own image (deploy/Dockerfile.gateway)
SERVICES = ["extractor", "cleaner", "chunker", "annotator", "indexer", "search"]


def _data_files() -> list[str]:
    """Every file of the Python packages that is not Python: what the code opens at run time."""
    found = []
    for package in PACKAGES:
        for path in (REPO / package).rglob("*"):
            relative = path.relative_to(REPO)
            if (
                path.is_file()
                and path.suffix not in (".py", ".pyc")
                and "__pycache__" not in relative.parts
                and not NOT_SHIPPED & set(relative.parts)
            ):
                found.append(relative.as_posix())
    return sorted(found)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    shutil.copy(REPO / "pyproject.toml", source)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules", ".next", *NOT_SHIPPED)
    for package in PACKAGES:
        shutil.copytree(REPO / package, source / package, ignore=ignore)
    out = tmp_path_factory.mktemp("wheels")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out), "."],
        cwd=source,
        check=True,
    )
    (built,) = out.glob("precedente-*.whl")
    return built


def test_the_wheel_holds_every_data_file_the_code_opens(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    data = _data_files()
    assert "services/search/data/legal_concepts.tsv" in data  # the file whose absence crashed every search
    assert "shared/migrations/0001_backbone.sql" in data
    installed_as = {name: name if name.startswith("precedente/") else f"precedente/{name}" for name in data}
    missing = [name for name in data if installed_as[name] not in names]
    assert not missing, f"the wheel leaves out {missing}: list them in [tool.setuptools.package-data]"


def test_the_wheel_claims_one_import_name(wheel: Path) -> None:
    """shared/ and services/ install as precedente.shared and precedente.services: a top-level "shared" or "services" in
    site-packages is a name any other distribution can claim (issue 32)."""
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"precedente"}
    assert "precedente/shared/runtime/stage.py" in names and "precedente/services/search/app.py" in names


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed as a package; its dependencies are this test
    environment's (a plain path line in a .pth: no editable finder of the source tree is activated)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], check=True)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "precedente_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def _clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRECEDENTE_") and k != "PYTHONPATH"}
    return {**env, **extra}


def test_the_installed_package_is_imported_from_the_install_not_the_source(installed: Path, tmp_path: Path) -> None:
    code = (
        "import precedente.services.search.concepts as c, precedente.shared.infra.db as d; "
        "print(c.__file__); print(len(c.concept_index().find('CDC'))); print(len(d.migration_files()))"
    )
    out = subprocess.run(
        [str(installed / "bin" / "python"), "-c", code],
        cwd=tmp_path,
        env=_clean_env({}),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out[0].startswith(str(installed)), out[0]
    assert int(out[1]) >= 1  # the concept table loaded from the install
    assert int(out[2]) == len(list((REPO / "shared" / "migrations").glob("*.sql")))


@pytest.fixture(scope="module")
def production(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """PostgreSQL and a broker, then `precedente migrate`, `topics` and one `precedente serve NAME` per
    service from the install, as docker-compose.yml runs them; yields (API URL, admin key)."""
    work = tmp_path_factory.mktemp("production")
    postgres = EmbeddedPostgres(work / "db")
    broker = EmbeddedBroker(logfile=work / "broker.log")
    processes: list[subprocess.Popen] = []
    try:
        port = free_port()
        env = _clean_env(
            {
                "PRECEDENTE_DATABASE_URL": postgres.start(),
                "PRECEDENTE_KAFKA_BOOTSTRAP": broker.start(),
                "PRECEDENTE_API_PORT": str(port),
                "PRECEDENTE_API_HOST": "127.0.0.1",
                "PRECEDENTE_DATA_DIR": str(work),
                "PRECEDENTE_CONSUMER_SESSION_TIMEOUT_MS": "4000",
                "PRECEDENTE_CONSUMER_HEARTBEAT_INTERVAL_MS": "1000",
                "PRECEDENTE_METRICS_PORT": "0",
                "OPENBLAS_NUM_THREADS": "1",
            }
        )
        precedente = str(installed / "bin" / "precedente")

        def run(*args: str) -> str:
            done = subprocess.run([precedente, *args], cwd=work, env=env, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"precedente {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
            return done.stdout

        run("migrate")
        run("topics")
        key = run("keys", "create", "--scope", "admin,ingest,search,review", "--local").split()[-1]
        for service in SERVICES:
            log = open(work / f"{service}.log", "wb")  # noqa: SIM115
            command = [precedente, "serve", service]
            processes.append(subprocess.Popen(command, cwd=work, env=env, stdout=log, stderr=log))
            log.close()
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("the search service did not answer /health:\n" + (work / "search.log").read_text()[-3000:])
        yield url, key
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        broker.stop()
        postgres.stop()


def test_the_installed_services_ingest_a_scan_and_a_native_pdf_and_search_them(production: tuple[str, str]) -> None:
    url, key = production
    client = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60)
    files = [
        DOCS / "scanned" / "stj_resp_1433940_mg_scan.pdf",
        DOCS / "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",
    ]
    ids = []
    for path in files:
        answer = client.post("/documents", files={"file": (path.name, path.read_bytes(), "application/pdf")})
        assert answer.status_code == 202, answer.text
        ids.append(answer.json()["document_id"])
    deadline, stages = time.monotonic() + 600, {}
    while time.monotonic() < deadline:
        stages = {i: client.get(f"/documents/{i}/status").json()["stage"] for i in ids}
        if all(stage in ("indexed", "review", "failed") for stage in stages.values()):
            break
        time.sleep(2)
    assert set(stages.values()) == {"indexed"}, stages
    scan = client.get(f"/documents/{ids[0]}/status").json()
    assert scan["ocr_confidence"] is not None  # it was read by OCR, from the install's extractor

    found = client.post("/search", json={"query": "cláusula compromissória arbitragem", "top_k": 5})
    assert found.status_code == 200, found.text
    # Every result was explained with the concept layer, which reads services/search/data/legal_concepts.tsv.
    assert {r["document_id"] for r in found.json()["results"]} & set(ids)
