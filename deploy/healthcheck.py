"""Container healthcheck of the precedente image (Dockerfile HEALTHCHECK; Kubernetes uses HTTP probes).

The image runs every service; what "healthy" means depends on the command PID 1 runs:
- `serve search`: GET /health on PRECEDENTE_API_PORT (it checks the database too);
- `serve <stage>`: GET /metrics on PRECEDENTE_METRICS_PORT when set (the stage's own HTTP server),
  otherwise the running process is all there is to check;
- one-shots (`migrate`, `topics`): healthy while they run.
Standard library only: it runs in the slim image, as the unprivileged user.
"""

import os
import sys
import urllib.request


def target(argv: list[str], env: dict[str, str]) -> str | None:
    if "serve" not in argv:
        return None
    service = argv[argv.index("serve") + 1] if argv.index("serve") + 1 < len(argv) else ""
    if service == "search":
        return f"http://127.0.0.1:{env.get('PRECEDENTE_API_PORT', '8000')}/health"
    port = env.get("PRECEDENTE_METRICS_PORT", "0")
    return f"http://127.0.0.1:{port}/metrics" if port not in ("", "0") else None


def main() -> int:
    try:
        with open("/proc/1/cmdline", "rb") as handle:
            argv = [part.decode() for part in handle.read().split(b"\0") if part]
    except OSError:
        argv = sys.argv[1:]
    url = target(argv, dict(os.environ))
    if url is None:
        return 0
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - a fixed loopback URL
            return 0 if response.status == 200 else 1
    except OSError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
