"""deploy/ checked with what runs here without a container engine: the Compose file against the
Compose specification's schema, the Kubernetes manifests against the Kubernetes API schemas
(strict), the proxy config with ``nginx -t``, the systemd unit with ``systemd-analyze verify``, and
every command the files run against the real CLI parser."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import kubernetes_validate.utils as kv
import pytest
import yaml

from orchestrator.cli import build_parser
from tests.support import ROOT

DEPLOY = ROOT / "deploy"
K8S_VERSION = "1.33.0"
CHECK_JSONSCHEMA = str(Path(sys.executable).with_name("check-jsonschema"))


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def manifests() -> list[dict]:
    return [doc for path in sorted((DEPLOY / "kubernetes").glob("*.yaml"))
            for doc in yaml.safe_load_all(path.read_text()) if doc]


def check_compose(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHECK_JSONSCHEMA, "--builtin-schema", "vendor.compose-spec", str(path)],
                          capture_output=True, text=True, timeout=60)


def test_compose_file_follows_the_compose_specification(tmp_path):
    ok = check_compose(DEPLOY / "compose.yaml")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = compose()
    broken["services"]["replica1"]["depends_on"] = {"migrate": {"condition": "when-it-feels-like-it"}}
    (tmp_path / "compose.yaml").write_text(yaml.safe_dump(broken))
    assert check_compose(tmp_path / "compose.yaml").returncode != 0  # the check can fail


def test_compose_runs_postgres_two_replicas_and_a_proxy():
    services = compose()["services"]
    assert {"postgres", "replica1", "replica2", "proxy", "migrate", "keys"} <= set(services)
    for name in ("replica1", "replica2"):
        svc = services[name]
        assert svc["environment"]["METIS_DATABASE_URL"].startswith("postgresql://")
        assert "keys:/run/metis/keys:ro" in svc["volumes"]  # every replica shares the same keys, read-only
        assert svc["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["proxy"]["depends_on"]["replica1"]["condition"] == "service_healthy"


def test_compose_replicas_only_serve_and_two_workers_run_the_actions():
    services = compose()["services"]
    for name in ("replica1", "replica2"):
        assert services[name]["command"][:3] == ["serve", "--workers", "0"]
    workers = [svc for svc in services.values() if svc.get("command", [""])[0] == "worker"]
    assert len(workers) == 2
    for svc in workers:
        assert svc["environment"]["METIS_DATABASE_URL"].startswith("postgresql://")
        assert "keys:/run/metis/keys:ro" in svc["volumes"]  # the seeds of sub-actions derive from the shared key
        assert svc["healthcheck"]["test"][1:4] == ["metis", "worker", "--check"]  # no HTTP port to probe
        assert build_parser().parse_args(svc["healthcheck"]["test"][2:]).fn
    assert len({v for svc in workers for v in svc["volumes"] if not v.startswith("keys:")}) == 2  # own scratch each


def test_kubernetes_worker_deployment_is_probed_non_root_and_disruption_budgeted():
    docs = manifests()
    worker = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "metis-worker")
    pod = worker["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["args"][0] == "worker" and "ports" not in container
    assert container["livenessProbe"]["exec"]["command"][:3] == ["metis", "worker", "--check"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    env = {e["name"]: e for e in container["env"]}
    assert env["METIS_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "metis-config"
    assert next(v for v in pod["volumes"] if v["name"] == "keys")["secret"]["secretName"] == "metis-keys"
    replica = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "metis-replica")
    assert "--workers" in (args := replica["spec"]["template"]["spec"]["containers"][0]["args"])
    assert args[args.index("--workers") + 1] == "0"  # replicas only serve
    pdb = next(d for d in docs if d["metadata"]["name"] == "metis-worker" and d["kind"] == "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"] == worker["spec"]["selector"]["matchLabels"]


def test_worker_liveness_check_reads_the_age_of_the_alive_file(tmp_path):
    def check(limit: str) -> int:
        return subprocess.run([sys.executable, "-m", "orchestrator.cli", "worker", "--check", limit, "--data-dir",
                               str(tmp_path)], cwd=ROOT, capture_output=True, timeout=60).returncode

    assert check("30") == 1  # never started
    alive = tmp_path / "worker.alive"
    alive.touch()
    assert check("30") == 0
    os.utime(alive, (time.time() - 120, time.time() - 120))
    assert check("30") == 1  # stuck


def test_kubernetes_manifests_validate_strictly_against_the_api_schemas():
    docs = manifests()
    for doc in docs:
        kv.validate(doc, K8S_VERSION, strict=True)
    kinds = sorted((d["kind"], d["metadata"]["name"]) for d in docs)
    assert ("Deployment", "metis-replica") in kinds
    assert {"Service", "PodDisruptionBudget", "Secret", "Job", "Ingress"} <= {k for k, _ in kinds}
    bad = next(d for d in docs if d["kind"] == "Deployment")
    bad["spec"]["template"]["spec"]["containers"][0]["readinessProbes"] = []  # a typo'd field
    with pytest.raises(kv.ValidationError):
        kv.validate(bad, K8S_VERSION, strict=True)


def test_replicas_are_probed_non_root_and_read_the_shared_keys_from_a_secret():
    replica = next(d for d in manifests() if d["kind"] == "Deployment" and d["metadata"]["name"] == "metis-replica")
    pod = replica["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"  # out of rotation while storage refuses writes
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    keys = next(v for v in pod["volumes"] if v["name"] == "keys")
    assert keys["secret"]["secretName"] == "metis-keys"
    env = {e["name"]: e for e in container["env"]}
    assert env["METIS_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "metis-config"
    pdb = next(d for d in manifests() if d["metadata"]["name"] == "metis-replica" and d["kind"] == "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"] == replica["spec"]["selector"]["matchLabels"]


def commands() -> list[list[str]]:
    """Every ``metis`` command line that compose and Kubernetes run."""
    found = [svc["command"] for svc in compose()["services"].values() if "command" in svc]
    for doc in manifests():
        spec = doc.get("spec", {})
        pod = spec.get("template", {}).get("spec", {})
        for c in pod.get("containers", []):
            found.append(c["args"])
            probe = c.get("livenessProbe", {}).get("exec")
            if probe:
                found.append(probe["command"][1:])
    return found


def test_every_command_the_deploy_files_run_is_a_real_cli_command():
    cmds = commands()
    assert len(cmds) >= 6
    parser = build_parser()
    for args in cmds:
        parsed = parser.parse_args(args)  # exits (fails the test) on an unknown command or option
        assert callable(parsed.fn)


def test_proxy_config_passes_nginx_t_and_streams_unbuffered(tmp_path):
    text = (DEPLOY / "nginx" / "nginx.conf").read_text()
    sse = re.search(r"location /streams/ \{(.*?)\}", text, re.S).group(1)
    assert "proxy_buffering off;" in sse and "proxy_read_timeout 3600s;" in sse
    ws = re.search(r"location = /toolbus \{(.*?)\}", text, re.S).group(1)
    assert "proxy_set_header Upgrade $http_upgrade;" in ws and "proxy_read_timeout 3600s;" in ws
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light) for its own config check")
    # the compose service names resolve only inside compose; nginx -t resolves upstreams, so point them here
    conf = tmp_path / "nginx.conf"
    conf.write_text(re.sub(r"server replica\d:8787", "server 127.0.0.1:8787", text))
    out = subprocess.run([nginx, "-t", "-q", "-p", str(tmp_path), "-c", str(conf), "-g", f"pid {tmp_path}/nginx.pid;"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    conf.write_text(text.replace("proxy_buffering off;", "proxy_buffering maybe;", 1))
    bad = subprocess.run([nginx, "-t", "-q", "-p", str(tmp_path), "-c", str(conf), "-g", f"pid {tmp_path}/nginx.pid;"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode != 0


def test_systemd_unit_passes_systemd_analyze_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    unit = (DEPLOY / "systemd" / "metis.service").read_text()
    assert "ExecStart=/opt/metis/bin/metis serve " in unit and "User=metis" in unit
    metis_bin = Path(sys.executable).with_name("metis")
    local = tmp_path / "metis.service"
    local.write_text(unit.replace("/opt/metis/bin/metis", str(metis_bin)))  # the binary must exist to verify
    out = subprocess.run([analyze, "verify", str(local)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "metis.service" not in out.stderr, out.stderr
    local.write_text(unit.replace("/opt/metis/bin/metis", str(metis_bin)).replace("Restart=", "Restrat=", 1))
    typo = subprocess.run([analyze, "verify", str(local)], capture_output=True, text=True, timeout=60)
    assert "Unknown key" in typo.stderr


def test_dockerfile_is_multi_stage_non_root_with_a_healthcheck():
    text = (DEPLOY / "Dockerfile").read_text()
    stages = re.findall(r"^FROM \S+ AS (\w+)$", text, re.M)
    assert stages == ["build", "runtime"]
    runtime = text.split("AS runtime", 1)[1]
    user = re.search(r"^USER (\S+)$", runtime, re.M).group(1)
    assert not user.startswith(("0", "root"))
    assert "COPY --from=build /opt/metis /opt/metis" in runtime
    assert re.search(r"^HEALTHCHECK .*\n?.*CMD .*/healthz", runtime, re.M)
    for src in re.findall(r"^COPY (?!--from)(\S+) ", text, re.M):
        assert (ROOT / src).exists(), src  # everything the build copies is in the repository
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text()
    for src in ("orchestrator", "abilities", "schemas", "receipts"):
        assert f"!{src}/**" in ignore


def test_every_metis_command_in_the_deployment_docs_is_a_real_cli_command():
    text = (ROOT / "docs" / "operations.md").read_text().split("## Deployment on PostgreSQL", 1)[1]
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines() if line.strip().startswith("metis ")]
    assert len(lines) >= 5
    parser = build_parser()
    for line in lines:
        args = line.split("#")[0].split()[1:]
        assert callable(parser.parse_args(args).fn), line
    for path in re.findall(r"`(deploy/[\w./-]+)`", text):  # every deploy file the docs name exists
        assert (ROOT / path).exists(), path
