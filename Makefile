# Two entry points on a fresh machine: `make run` and `make test`. Both install what is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := tesseract-ocr tesseract-ocr-por libreoffice-writer-nogui chromium
# The web page (services/gateway, Next.js): `npm ci` when the lockfile changes, `npm run build` when a source does.
GATEWAY := services/gateway
GATEWAY_DEPS := $(GATEWAY)/node_modules/.installed
GATEWAY_BUILD := $(GATEWAY)/.next/standalone/.built
GATEWAY_SOURCES := $(shell find $(GATEWAY)/app $(GATEWAY)/components $(GATEWAY)/lib $(GATEWAY)/public -type f 2>/dev/null) \
	$(GATEWAY)/next.config.ts $(GATEWAY)/proxy.ts $(GATEWAY)/tsconfig.json $(GATEWAY)/scripts/copy-static.mjs

.PHONY: install system-packages gateway run test test-fast test-gateway lint

install: system-packages $(STAMP) gateway

system-packages:
	@if ! command -v tesseract >/dev/null || ! tesseract --list-langs 2>/dev/null | grep -qx por \
		|| ! command -v soffice >/dev/null || ! command -v chromium >/dev/null; then \
		$(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES); \
	fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,gpu]"
	touch $(STAMP)

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

# Everything (.ci/run runs this): ruff, the page's unit tests, and every Python test, end-to-end ones included.
test: install lint test-gateway
	$(BIN)/python -m pytest -q -ra

# The inner loop: ruff and the Python tests but the end-to-end and slow ones (markers in pyproject.toml): no
# stack to start, no wheel or web page to build, no whole scan to OCR. The slowest ten are named at the end.
test-fast: system-packages lint
	$(BIN)/python -m pytest -q -ra -m "not e2e and not slow" --durations=10
