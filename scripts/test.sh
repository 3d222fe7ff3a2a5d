#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run every test:
# the Python suite (unit, parity with transformers, pytest-lsp end to end, Neovim, pre-commit)
# and the VS Code extension (type check, unit and protocol tests, vsce package).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# torch is pinned in the [test] extra: an unpinned torch pulls a multi-GB CUDA build.
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
# timm and torchvision for tests/parity/test_timm_parity.py, beside the environment: PyPI's
# torchvision is built for CUDA torch and cannot be imported as it is with the CPU torch (see
# tests/parity/timm_runner.py); in the test environment it would change what transformers imports.
.venv/bin/python -m pip install --quiet --no-deps --upgrade --target .venv/timm-sidecar \
  'timm==1.0.31' 'torchvision==0.28.0' 'pillow>=10'
# litgpt for tests/parity/test_litgpt_parity.py, beside the environment too: it builds LitGPT's
# models in a child process (tests/parity/litgpt_runner.py) with the torch installed here.
.venv/bin/python -m pip install --quiet --no-deps --upgrade --target .venv/litgpt-sidecar 'litgpt==0.5.13'
# bitsandbytes for tests/parity/test_bnb_parity.py, beside the environment too (it loads quantized models
# in a child process, tests/parity/bnb_runner.py, on the CPU): importable in the test environment, it would
# change the paths transformers takes in every other test.
.venv/bin/python -m pip install --quiet --no-deps --upgrade --target .venv/bnb-sidecar 'bitsandbytes==0.50.2'
# deepspeed for tests/parity/test_deepspeed_config_parity.py, beside the environment too (read in a
# child process, tests/parity/deepspeed_runner.py): PyPI has its source only, built here against the
# torch installed above (no build isolation, which would pull another torch) with none of its ops
# compiled; with the three packages its config classes import that the test set-up lacks.
if [ ! -f .venv/deepspeed-sidecar/deepspeed-0.19.8.dist-info/METADATA ]; then
  DS_BUILD_OPS=0 .venv/bin/python -m pip install --quiet --no-deps --no-build-isolation --upgrade \
    --target .venv/deepspeed-sidecar 'deepspeed==0.19.8' 'hjson==3.1.0' 'py-cpuinfo==9.0.0' 'msgpack==1.2.4'
fi

# Neovim is the real editor the end-to-end editor test drives.
if ! command -v nvim >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim) >/dev/null
  fi
fi

.venv/bin/python -m pytest -q -p no:cacheprovider "$@"

if [ -d client-vscode ] && [ -f client-vscode/package.json ]; then
  export LSP_COUNT_SERVER="$PWD/.venv/bin/lsp-count"
  (cd client-vscode && npm ci --no-audit --no-fund --loglevel=error && npm test && npm run package)
fi
