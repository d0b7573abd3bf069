"""Schema and consistency checks of the Kubernetes manifests in deploy/k8s (no cluster runs here).

Every built-in resource is validated, strictly (no unknown fields), against the Kubernetes JSON schemas
that the `kubernetes-validate` package ships (offline). KEDA's ScaledObject is a CRD those schemas do not
cover: a minimal structural schema is checked here instead. Then the manifests are checked against
the code: commands, settings names, topic and consumer group of the autoscaler, security and probes.
"""

import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from precedente.shared.contracts import Topic
from precedente.shared.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
K8S_VERSIONS = ["1.29.0", "1.33.0"]  # the oldest and a recent release we claim to support
STAGES = ("extractor", "cleaner", "chunker", "annotator", "indexer")
OUR_IMAGES = ("precedente", "precedente-gateway")
CRDS = {("keda.sh/v1alpha1", "ScaledObject")}


@cache
def resources() -> list[dict[str, Any]]:
    found = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                document["__file__"] = path.name
                found.append(document)
    return found


def clean(resource: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in resource.items() if k != "__file__"}


def of_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {r["metadata"]["name"]: r for r in resources() if r["kind"] == kind}


def workloads() -> list[dict[str, Any]]:
    return [r for r in resources() if r["kind"] in ("Deployment", "StatefulSet", "Job")]


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    return workload["spec"]["template"]["spec"]


def image_name(container: dict[str, Any]) -> str:
    return container["image"].rsplit("/", 1)[-1].split(":")[0]


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [f"{r['kind']}/{r['metadata']['name']}" for r in items]


# --- schemas ---------------------------------------------------------------------------------------

BUILTIN = [r for r in resources() if (r["apiVersion"], r["kind"]) not in CRDS]


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize("resource", BUILTIN, ids=ids(BUILTIN))
def test_resource_matches_the_kubernetes_schema(resource: dict[str, Any], version: str) -> None:
    try:
        kubernetes_validate.validate(clean(resource), version, strict=True)
    except kubernetes_validate.ValidationError as err:
        pytest.fail(f"{resource['__file__']}: {err.message} at {'/'.join(map(str, err.path))}")


SCALED_OBJECT_SCHEMA = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "keda.sh/v1alpha1"},
        "kind": {"const": "ScaledObject"},
        "metadata": {
            "type": "object",
            "required": ["name", "namespace"],
            "properties": {"name": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}},
        },
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["scaleTargetRef", "triggers"],
            "properties": {
                "scaleTargetRef": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["name"],
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "name": {"type": "string"},
                        "envSourceContainerName": {"type": "string"},
                    },
                },
                "pollingInterval": {"type": "integer", "minimum": 1},
                "cooldownPeriod": {"type": "integer", "minimum": 0},
                "idleReplicaCount": {"type": "integer", "minimum": 0},
                "minReplicaCount": {"type": "integer", "minimum": 0},
                "maxReplicaCount": {"type": "integer", "minimum": 1},
                "fallback": {"type": "object"},
                "advanced": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "restoreToOriginalReplicaCount": {"type": "boolean"},
                        "horizontalPodAutoscalerConfig": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {"name": {"type": "string"}, "behavior": {"type": "object"}},
                        },
                        "scalingModifiers": {"type": "object"},
                    },
                },
                "triggers": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["type", "metadata"],
                        "properties": {
                            "type": {"type": "string"},
                            "name": {"type": "string"},
                            "metricType": {"enum": ["AverageValue", "Value", "Utilization"]},
                            "useCachedMetrics": {"type": "boolean"},
                            # KEDA reads every trigger parameter as a string.
                            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                            "authenticationRef": {"type": "object", "required": ["name"]},
                        },
                    },
                },
            },
        },
    },
}


def scaled_object() -> dict[str, Any]:
    found = of_kind("ScaledObject")
    assert list(found) == ["extractor"], "one ScaledObject, for the extractor"
    return found["extractor"]


def test_scaled_object_is_structurally_valid() -> None:
    jsonschema.Draft202012Validator(SCALED_OBJECT_SCHEMA).validate(clean(scaled_object()))


def test_the_structural_schema_catches_mistakes() -> None:
    broken = clean(scaled_object())
    broken["spec"] = {**broken["spec"], "triggers": [{"type": "kafka", "metadata": {"lagThreshold": 5}}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCALED_OBJECT_SCHEMA).validate(broken)


def test_extractor_scales_on_its_consumer_lag_of_the_submitted_topic() -> None:
    from precedente.services.extractor.service import SERVICE

    spec = scaled_object()["spec"]
    target = spec["scaleTargetRef"]
    assert (target.get("kind", "Deployment"), target["name"]) == ("Deployment", "extractor")
    assert "extractor" in of_kind("Deployment")
    (trigger,) = spec["triggers"]
    assert trigger["type"] == "kafka"
    meta = trigger["metadata"]
    assert meta["topic"] == Topic.SUBMITTED.value == SERVICE.input_topic.value
    assert meta["consumerGroup"] == SERVICE.group_id
    assert int(meta["lagThreshold"]) > 0
    host = meta["bootstrapServers"].split(",")[0].rsplit(":", 1)[0].split(".")[0]
    assert host in of_kind("Service") and host == config()["PRECEDENTE_KAFKA_BOOTSTRAP"].split(":")[0]
    partitions = int(config()["PRECEDENTE_TOPIC_PARTITIONS"])
    assert 1 <= spec["minReplicaCount"] <= spec["maxReplicaCount"] <= partitions, "replicas past the partitions idle"


# --- the kustomization and the code ----------------------------------------------------------------


def test_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk
    assert kustomization["namespace"] == "precedente"
    assert all(r["metadata"].get("namespace", "precedente") == "precedente" for r in resources())


def test_every_service_has_its_deployment_running_the_right_command() -> None:
    deployments = of_kind("Deployment")
    assert set(deployments) == {*STAGES, "search", "gateway"}
    for name in (*STAGES, "search"):
        (container,) = pod_spec(deployments[name])["containers"]
        assert image_name(container) == "precedente"
        assert container["args"] == ["serve", name]
    jobs = of_kind("Job")
    assert pod_spec(jobs["migrate"])["containers"][0]["args"] == ["migrate"]
    assert pod_spec(jobs["topics"])["containers"][0]["args"] == ["topics", "--resume"]


def config() -> dict[str, str]:
    return of_kind("ConfigMap")["precedente-config"]["data"]


def test_configuration_names_are_real_settings_and_secrets_stay_out_of_the_configmap() -> None:
    fields = set(Settings.model_fields)
    for key in config():
        if key.startswith("PRECEDENTE_"):
            assert key.removeprefix("PRECEDENTE_").lower() in fields, key
    assert "PRECEDENTE_DATABASE_URL" not in config()
    for workload in workloads():
        for container in pod_spec(workload)["containers"]:
            if image_name(container) != "precedente":
                continue
            assert {"configMapRef": {"name": "precedente-config"}} in container["envFrom"]
            env = {e["name"]: e for e in container.get("env", [])}
            ref = env["PRECEDENTE_DATABASE_URL"]["valueFrom"]["secretKeyRef"]
            assert ref["name"] == "precedente-secrets"
            for name in env:
                if name.startswith("PRECEDENTE_"):
                    assert name.removeprefix("PRECEDENTE_").lower() in fields, name


def test_services_select_pods_and_target_named_ports() -> None:
    services = of_kind("Service")
    assert {"search", "gateway", "kafka", "postgres"} <= set(services)
    assert services["search"]["spec"].get("type", "ClusterIP") == "ClusterIP", "only the gateway faces users"
    pods = {w["metadata"]["name"]: w for w in workloads()}
    for name, service in services.items():
        selector = service["spec"]["selector"]
        matching = [w for w in pods.values() if selector.items() <= w["spec"]["template"]["metadata"]["labels"].items()]
        assert matching, f"Service {name} selects no pods"
        ports = {
            p.get("name"): p["containerPort"] for w in matching for c in pod_spec(w)["containers"] for p in c["ports"]
        }
        for port in service["spec"]["ports"]:
            target = port.get("targetPort", port["port"])
            assert target in ports or target in ports.values(), f"Service {name}: no container port {target}"
    assert services["search"]["spec"]["ports"][0]["port"] == int(config()["PRECEDENTE_API_PORT"])


def test_workloads_run_unprivileged_with_resources() -> None:
    for workload in workloads():
        name = workload["metadata"]["name"]
        pod = pod_spec(workload)
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] != 0, name
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", name
        for container in pod["containers"]:
            security = container["securityContext"]
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["capabilities"]["drop"] == ["ALL"], name
            if image_name(container) in OUR_IMAGES:
                assert security["readOnlyRootFilesystem"] is True, name
                mounts = {m["mountPath"] for m in container["volumeMounts"]}
                assert "/tmp" in mounts, f"{name}: a read-only root needs a writable /tmp"
            resources_ = container["resources"]
            assert {"cpu", "memory"} <= set(resources_["requests"]) and {"cpu", "memory"} <= set(resources_["limits"])


def test_our_image_uses_the_dockerfile_user() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    uid = int(re.findall(r"^USER (\d+)", dockerfile, re.M)[-1])
    for workload in workloads():
        pod = pod_spec(workload)
        if any(image_name(c) == "precedente" for c in pod["containers"]):
            assert pod["securityContext"]["runAsUser"] == uid


def test_long_running_containers_have_probes_on_their_ports() -> None:
    for workload in workloads():
        if workload["kind"] == "Job":
            continue
        for container in pod_spec(workload)["containers"]:
            name = workload["metadata"]["name"]
            assert "livenessProbe" in container, name
            ports = {p.get("name") for p in container["ports"]} | {p["containerPort"] for p in container["ports"]}
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                action = container.get(probe, {})
                for kind in ("httpGet", "tcpSocket"):
                    if kind in action:
                        assert action[kind]["port"] in ports, f"{name} {probe}: port {action[kind]['port']}"
    search = pod_spec(of_kind("Deployment")["search"])["containers"][0]
    assert search["readinessProbe"]["httpGet"]["path"] == "/health"
    for stage in STAGES:
        container = pod_spec(of_kind("Deployment")[stage])["containers"][0]
        assert container["livenessProbe"]["httpGet"]["port"] == "metrics"
        metrics = next(p for p in container["ports"] if p["name"] == "metrics")
        assert metrics["containerPort"] == int(config()["PRECEDENTE_METRICS_PORT"])


def test_extractor_runs_one_ocr_thread_per_replica() -> None:
    container = pod_spec(of_kind("Deployment")["extractor"])["containers"][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["OMP_THREAD_LIMIT"] == "1"


def test_the_kubernetes_schemas_catch_mistakes() -> None:
    """The strict schemas are really applied: a misspelt field and a wrong type are both refused."""
    search = clean(of_kind("Deployment")["search"])
    container = search["spec"]["template"]["spec"]["containers"][0]
    misspelt = {**container, "livenesProbe": container["livenessProbe"]}
    broken = {**search, "spec": {**search["spec"], "template": {**search["spec"]["template"]}}}
    broken["spec"]["template"]["spec"] = {**search["spec"]["template"]["spec"], "containers": [misspelt]}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSIONS[-1], strict=True)
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate({**search, "spec": {**search["spec"], "replicas": "two"}}, K8S_VERSIONS[-1])


def test_the_alerts_digest_is_a_daily_cronjob_suspended_until_smtp_is_set() -> None:
    cron = of_kind("CronJob")["alertas"]
    assert cron["spec"]["suspend"] is True and cron["spec"]["concurrencyPolicy"] == "Forbid"
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert image_name(container) == "precedente" and container["args"] == ["alertas", "enviar"]
    assert {"configMapRef": {"name": "precedente-config"}} in container["envFrom"]
    env = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in container["env"]}
    assert env["PRECEDENTE_DATABASE_URL"]["name"] == env["PRECEDENTE_SMTP_PASSWORD"]["name"] == "precedente-secrets"
    assert all(name.removeprefix("PRECEDENTE_").lower() in Settings.model_fields for name in env)
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert "/tmp" in {m["mountPath"] for m in container["volumeMounts"]}
