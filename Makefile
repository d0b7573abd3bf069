# Two entry points on a fresh machine: `make run` and `make test`. Both install what is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := tesseract-ocr tesseract-ocr-por libreoffice-writer-nogui

.PHONY: install system-packages run test lint

install: system-packages $(STAMP)

system-packages:
	@if ! command -v tesseract >/dev/null || ! tesseract --list-langs 2>/dev/null | grep -qx por \
		|| ! command -v soffice >/dev/null; then \
		$(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES); \
	fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: install
	$(BIN)/precedente up

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: install lint
	$(BIN)/python -m pytest -q -ra
