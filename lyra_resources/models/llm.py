"""The optional local LLM: an Ollama server, used when one is reachable.

Lyra never needs it: every use has a model-free fallback, and every output records which method
produced it. Prompts are Jinja templates in ``config/prompts/``; answers are JSON validated with
pydantic, and an answer that does not validate counts as no answer.
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from pathlib import Path

import httpx
from dagster import ConfigurableResource
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import BaseModel, Field, ValidationError

from lyra_resources.environment import read_environment
from lyra_resources.home import CONFIG_DIR

log = logging.getLogger(__name__)


class LlmError(RuntimeError):
    """The LLM did not give a usable answer."""


@lru_cache(maxsize=1)
def _prompts() -> Environment:
    return Environment(
        loader=FileSystemLoader(Path(CONFIG_DIR) / "prompts"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_prompt(name: str, **values) -> str:
    return _prompts().get_template(name).render(**values)


class ExtractedClaim(BaseModel):
    text: str = Field(min_length=10, max_length=600)


class ExtractedClaims(BaseModel):
    claims: list[ExtractedClaim] = Field(default_factory=list)


class OllamaLlm(ConfigurableResource):
    """An Ollama server's /api/generate with JSON output. ``provider`` 'none' switches it off."""

    provider: str = "auto"
    base_url: str = "http://127.0.0.1:11434"
    model: str = "qwen2.5:3b"
    timeout_s: float = 60.0

    @property
    def url(self) -> str:
        host = read_environment().ollama_host or self.base_url
        return host if host.startswith("http") else f"http://{host}"

    def available(self) -> tuple[bool, str]:
        """Whether the server answers and has the model; the reason when not."""
        if self.provider == "none":
            return False, "LLM switched off (llm.provider: none)"
        try:
            response = httpx.get(f"{self.url}/api/tags", timeout=1.0)
            response.raise_for_status()
            names = {m.get("name") for m in response.json().get("models", [])}
        except (httpx.HTTPError, ValueError) as exc:
            return False, f"no Ollama server at {self.url} ({type(exc).__name__})"
        if self.model not in names and f"{self.model}:latest" not in names:
            return False, f"Ollama at {self.url} has no model {self.model} (`ollama pull {self.model}`)"
        return True, f"ollama:{self.model}"

    def generate_json(self, prompt: str, schema: type[BaseModel]) -> BaseModel:
        """One completion parsed into ``schema``; LlmError if the server or the answer fails."""
        body = {
            "model": self.model,
            "prompt": prompt,
            "stream": False,
            "format": schema.model_json_schema(),
            "options": {"temperature": 0},
        }
        try:
            response = httpx.post(f"{self.url}/api/generate", json=body, timeout=self.timeout_s)
            response.raise_for_status()
            text = response.json()["response"]
            return schema.model_validate(json.loads(text))
        except (httpx.HTTPError, KeyError, ValueError, ValidationError) as exc:
            raise LlmError(f"{self.url}/api/generate ({self.model}): {exc}") from exc

    def extract_claims(self, question: str, passage: str, max_claims: int = 5) -> list[str]:
        prompt = render_prompt(
            "claim_extraction.j2", question=question, passage=passage, max_claims=max_claims
        )
        answer = self.generate_json(prompt, ExtractedClaims)
        return [" ".join(c.text.split()) for c in answer.claims][:max_claims]
