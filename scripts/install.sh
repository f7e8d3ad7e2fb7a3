#!/usr/bin/env bash
# Install Lyra into ./.venv (Python >= 3.11) with CPU-only PyTorch. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${LYRA_VENV:-.venv}

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi

pip_args=(--disable-pip-version-check -q)
# PyTorch from PyPI is a multi-GB CUDA build on Linux; take the CPU wheel from a local wheel folder
# when one is configured (PIP_FIND_LINKS), otherwise from PyTorch's CPU index.
if [ -z "${PIP_FIND_LINKS:-}" ] && ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  pip_args+=(--extra-index-url "${LYRA_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}")
fi

"$VENV/bin/python" -m pip install "${pip_args[@]}" -e ".[test]"
echo "Lyra installed in $VENV: run '$VENV/bin/lyra --help'"
