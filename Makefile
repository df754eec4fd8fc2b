# `make test` and `make train` work on a fresh machine: they create or reuse .venv and install what they need.
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: venv test train bench clean

$(VPY):
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip

# torch first, pinned to the CPU wheel, so no later resolver step can pull a CUDA build.
$(STAMP): $(VPY) pyproject.toml
	$(VPY) -m pip install -q "torch==2.13.0"
	$(VPY) -m pip install -q -e ".[train,dev]" --config-settings editable_mode=compat
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(VPY) -m pytest -n 2 --durations=15 -q

train: $(STAMP)
	$(VPY) train.py --preset make-train

bench: $(STAMP)
	$(VPY) benchmarks/bench_steps.py

clean:
	rm -rf $(VENV) runs .pytest_cache
