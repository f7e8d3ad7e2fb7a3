"""The settings and the environment checked as a whole, before a task exists.

Pydantic checks each field of the settings file as it is read (``loading``), but the environment
variables that win over it are read later, where they are used: a run would create its task and
then fail deep inside a step (``$LYRA_BROWSER_SEARCH=yes``, a ``$S2_API_KEY`` holding a line break
that no HTTP header can carry, a URL that does not parse, ``models.embedder`` naming a folder that
does not exist). :func:`check_configuration` checks every such value the way its reader will use
it, and raises SettingsError whose message is one line naming the variable or the settings file
and the field. ``lyra_resources.task_input.check_task_input`` calls it before any task of
``lyra run``, ``lyra task run``, ``lyra verify``, MCP ``create_task`` or a watched task's schedule
exists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from lyra_resources.environment import LyraEnvironment, read_environment
from lyra_resources.home import CONFIG_DIR
from lyra_resources.models.model_files import PACKAGED_EMBEDDER
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.pipeline import ModelSettings, SettingsError

MODES = ("auto", "on", "off")
# what an HTTP header value (and a query parameter Lyra sends) may hold: printable ASCII
_HEADER_SAFE = re.compile(r"[\x20-\x7e]*")
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")
# a model folder holds one of these (transformers' config, sentence-transformers' modules)
MODEL_MARKERS = ("config.json", "modules.json")


def settings_file() -> str:
    """The settings file the values come from, for messages: ``$LYRA_SETTINGS`` or config/settings.yaml."""
    return read_environment().settings or str(CONFIG_DIR / "settings.yaml")


def _variable(name: str) -> str:
    return f"${name}"


def _field(name: str) -> str:
    return f"{name} in the settings file {settings_file()}"


def _check_mode(value: str | None, name: str, choices: tuple[str, ...], blank_is_unset: bool) -> None:
    """An environment variable that names one of ``choices``, normalised as its reader does."""
    if value is None or (blank_is_unset and not value.strip()) or value == "":
        return
    if value.strip().lower() not in choices:
        raise SettingsError(
            f"${name} is {value[:40]!r}; use {', '.join(choices[:-1])} or {choices[-1]}, or unset it"
        )


def url_problem(value: str) -> str | None:
    """Why ``value`` is no http(s) URL a request can be sent to; None when it is one."""
    import httpx

    if value != value.strip() or any(c.isspace() for c in value):
        return "it holds spaces or line breaks"
    try:
        url = httpx.URL(value)
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        return str(exc).rstrip(".")
    if url.scheme not in ("http", "https"):
        return (
            f"its scheme is {url.scheme!r}, not http or https"
            if url.scheme
            else "it has no http:// or https://"
        )
    if not url.host:
        return "it names no host"
    if url.port is not None and not 0 < url.port < 65536:
        return f"its port {url.port} is not between 1 and 65535"
    return None


def _check_url(value: str, where: str, example: str) -> None:
    if problem := url_problem(value):
        shown = value if len(value) <= 80 else value[:80] + "…"
        raise SettingsError(
            f"{where} is not a usable URL ({problem}): {shown!r}; set an http(s) URL such as {example}"
        )


def _check_header_safe(value: str, where: str, what: str) -> None:
    """``value`` (not shown: it may be a secret) can be sent in an HTTP header or query."""
    if not _HEADER_SAFE.fullmatch(value.strip()):
        raise SettingsError(
            f"{where} holds a line break, a control character or a character outside ASCII, which "
            f"no HTTP request can carry; set {what} again without it"
        )


def check_environment(cfg: LyraSettings, env: LyraEnvironment) -> None:
    """The variables that win over the settings, and the settings they override, as their readers
    will use them: modes, URLs and the values sent in HTTP headers."""
    _check_mode(env.sources_live, "LYRA_SOURCES_LIVE", MODES, blank_is_unset=False)
    _check_mode(env.browser_search, "LYRA_BROWSER_SEARCH", MODES, blank_is_unset=True)
    _check_mode(env.profile, "LYRA_PROFILE", ("local", "cluster"), blank_is_unset=True)
    _check_mode(env.store, "LYRA_STORE", ("auto", "duckdb", "postgres"), blank_is_unset=True)
    sources = cfg.sources
    for variable, value, field, fallback, example in [
        (
            "LYRA_S2_BASE_URL",
            env.s2_base_url,
            "sources.semantic_scholar_url",
            sources.semantic_scholar_url,
            "https://api.semanticscholar.org/graph/v1",
        ),
        (
            "LYRA_OPENALEX_BASE_URL",
            env.openalex_base_url,
            "sources.openalex_url",
            sources.openalex_url,
            "https://api.openalex.org",
        ),
    ]:
        where = _variable(variable) if value else _field(field)
        _check_url(value or fallback, where, example)
    host = env.ollama_host or cfg.llm.ollama_url
    _check_url(
        host if host.startswith("http") else f"http://{host}",
        _variable("OLLAMA_HOST") if env.ollama_host else _field("llm.ollama_url"),
        "http://127.0.0.1:11434",
    )
    for engine, url in cfg.browser.engine_urls.items():
        _check_url(url, _field(f"browser.engine_urls.{engine}"), "https://html.duckduckgo.com/html/")
    _check_url(cfg.browser.doi_resolver, _field("browser.doi_resolver"), "https://doi.org/")
    for variable, value, what in [
        ("S2_API_KEY", env.s2_api_key, "the key"),
        ("OPENALEX_API_KEY", env.openalex_api_key, "the key"),
        ("LYRA_MAILTO", env.mailto, "the address"),
    ]:
        if value:
            _check_header_safe(value, _variable(variable), what)
    if not env.mailto:
        _check_header_safe(sources.mailto, _field("sources.mailto"), "the address")
    _check_header_safe(cfg.browser.user_agent, _field("browser.user_agent"), "the user agent")
    cfg.cluster.effective()  # $LYRA_PROFILE and $LYRA_STORE against the cluster section


def model_problem(value: str) -> str | None:
    """Why ``value`` names no model Lyra can load (offline: a folder holding one, or a Hugging Face
    id already in the local cache); None when it does."""
    path = Path(value)
    try:
        if path.is_dir():
            if any((path / marker).is_file() for marker in MODEL_MARKERS):
                return None
            return f"the folder holds no model (no {' or '.join(MODEL_MARKERS)})"
        if path.exists():
            return "it is a file, not a model folder"
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        return f"it cannot be used as a path ({getattr(exc, 'strerror', None) or exc})"
    if _HUB_ID.fullmatch(value) and "/" in value and _in_hub_cache(value):
        return None
    if _HUB_ID.fullmatch(value) and "/" in value:
        return (
            "no such folder, and no such model in the local Hugging Face cache (Lyra loads "
            "models offline: download it first and name its folder)"
        )
    return "no such folder"


def _in_hub_cache(repo_id: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        return any(isinstance(try_to_load_from_cache(repo_id, m), str) for m in MODEL_MARKERS)
    except Exception:  # an id the hub refuses, a cache that cannot be read: not there
        return False


def check_models(models: ModelSettings, fields: tuple[str, ...] | None = None) -> None:
    """Every model the settings name (or those of ``fields``) exists and is a model, before a run
    tries to load it."""
    # (field, its value as the loader reads it, whether that names no folder, what to set instead),
    # each normalised as lyra_resources.models.local_models reads it
    for field, value, keyword, instead in [
        ("embedder", models.embedder, models.embedder == PACKAGED_EMBEDDER, f"set it to {PACKAGED_EMBEDDER}"),
        ("nli", models.nli, models.nli == "", "leave it empty for the verifier shipped with Lyra"),
        (
            "direction",
            models.direction,
            models.direction == "" or models.direction.strip().lower() == "off",
            "leave it empty for the reader shipped with Lyra, or set it to off",
        ),
        (
            "reranker",
            models.reranker.strip(),
            models.reranker.strip().lower() in ("none", "auto"),
            "set it to none or auto",
        ),
    ]:
        if fields is not None and field not in fields:
            continue
        if not keyword and (problem := model_problem(value)):
            shown = value if len(value) <= 80 else value[:80] + "…"
            raise SettingsError(
                f"{_field('models.' + field)} is {shown!r}, which is no model: {problem}; "
                f"name a model folder, or {instead}"
            )


def check_configuration(cfg: LyraSettings, env: Mapping[str, str] | None = None) -> None:
    """The settings ``cfg`` and the environment ``env`` (default: this process's) checked as the
    run will use them; SettingsError (one line naming the variable or field) at the first problem."""
    check_environment(cfg, read_environment(env))
    check_models(cfg.models)
