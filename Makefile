# `make test` and `make train` work on a fresh machine: they create or reuse .venv and install what they need.
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: venv test train train-fantastiqa bench clean

$(VPY):
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip

# torch first, pinned to the CPU wheel, so no later resolver step can pull a CUDA build.
$(STAMP): $(VPY) pyproject.toml
	$(VPY) -m pip install -q "torch==2.13.0"
	$(VPY) -m pip install -q -e ".[train,dev,web,openspiel,torchrl,tianshou]"
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(VPY) -m pytest -n 2 --durations=15 -q

train: $(STAMP)
	$(VPY) train.py --preset make-train

# Fantastiqa (STAND-IN cards), 2 players: under 1 hour on 2 cores.
train-fantastiqa: $(STAMP)
	$(VPY) train.py --preset fantastiqa

bench: $(STAMP)
	$(VPY) benchmarks/bench_steps.py

clean:
	rm -rf $(VENV) runs .pytest_cache

# ---------------------------------------------------------------- RLlib (Ray cluster training)
# ray[rllib] pins its own gymnasium version, so RLlib gets its own environment, .venv-rllib.
# `make test-rllib` also runs the Fae suite there (env, PettingZoo API), so it keeps working with that gymnasium.
VENV_RLLIB := .venv-rllib
RPY := $(VENV_RLLIB)/bin/python
RSTAMP := $(VENV_RLLIB)/.installed-stamp
# e.g. make train-rllib RLLIB_ARGS="--address auto --num-env-runners 8"
RLLIB_ARGS ?=

.PHONY: venv-rllib train-rllib test-rllib clean-rllib

$(RPY):
	$(PY) -m venv $(VENV_RLLIB)
	$(RPY) -m pip install -q --upgrade pip

# torch first, pinned to the CPU wheel, so no later resolver step can pull a CUDA build.
$(RSTAMP): $(RPY) pyproject.toml
	$(RPY) -m pip install -q "torch==2.13.0"
	$(RPY) -m pip install -q -e ".[rllib,dev]"
	touch $(RSTAMP)

venv-rllib: $(RSTAMP)

test-rllib: $(RSTAMP)
	$(RPY) -m pytest -q --durations=10 tests/test_rllib.py $(wildcard tests/test_fae_*.py)

train-rllib: $(RSTAMP)
	$(RPY) train.py --backend rllib $(RLLIB_ARGS)

clean-rllib:
	rm -rf $(VENV_RLLIB)
