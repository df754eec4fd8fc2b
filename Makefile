# `make test` and `make train` work on a fresh machine: they create or reuse .venv and install what they need.
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: venv test train train-fantastiqa bench clean

$(VPY):
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip

# torch first, so no later resolver step picks another build. Which build is the caller's choice
# (docs/install.md): TORCH_INDEX empty means pip's own configured index; on PyPI,
# Linux x86_64 wheels are the CUDA build. e.g. make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
TORCH_INSTALL = -m pip install -q "$(TORCH_SPEC)" $(if $(TORCH_INDEX),--index-url "$(TORCH_INDEX)")

$(STAMP): $(VPY) pyproject.toml
	$(VPY) $(TORCH_INSTALL)
	$(VPY) -m pip install -q -e ".[train,dev,web,openspiel,torchrl,tianshou,llm]"
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(VPY) -m pytest -n 2 --durations=15 -q

train: $(STAMP)
	$(VPY) train.py --preset make-train

# Fantastiqa (STAND-IN cards), 2 players: under 30 minutes on 2 cores (22 min of training, then 2,000 games).
# The best recipe in 30 minutes measured (docs/benchmarks.md): the one-file preset over the greedy block; the
# card-reading presets (fantastiqa-cards, fantastiqa-cards-greedy: any card file) end below it so far.
train-fantastiqa: $(STAMP)
	@echo "make train-fantastiqa: --preset fantastiqa (the best STAND-IN policy in 30 min; any card file: --preset fantastiqa-cards-greedy)"
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

# torch first, the same choice as .venv (TORCH_SPEC, TORCH_INDEX above).
$(RSTAMP): $(RPY) pyproject.toml
	$(RPY) $(TORCH_INSTALL)
	$(RPY) -m pip install -q -e ".[rllib,dev]"
	touch $(RSTAMP)

venv-rllib: $(RSTAMP)

test-rllib: $(RSTAMP)
	$(RPY) -m pytest -q --durations=10 tests/test_rllib.py $(wildcard tests/test_fae_*.py)

train-rllib: $(RSTAMP)
	$(RPY) train.py --backend rllib $(RLLIB_ARGS)

clean-rllib:
	rm -rf $(VENV_RLLIB)
