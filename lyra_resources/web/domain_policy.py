"""The domain trust policy: ``config/domains.yaml`` validated, hot-reloaded, and queried.

Trust levels rank fragments and annotate edges; they never enter claim confidence. The policy
answers three questions about a domain: its trust level (user overrides > listed domains, which
cover their subdomains > the longest matching suffix rule > the default), its ranking weight,
and how politely to fetch from it.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import yaml
from dagster import ConfigurableResource, InitResourceContext, get_dagster_logger
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from lyra_resources.config_files import ConfigFileError, check_yaml_shape, read_config_text
from lyra_resources.environment import read_environment
from lyra_resources.home import CONFIG_DIR

log = logging.getLogger(__name__)
REPO_POLICY = Path(CONFIG_DIR) / "domains.yaml"
DOMAINS_FILE = Path(_named if (_named := read_environment().domains) is not None else REPO_POLICY)


class TrustLevel(str, Enum):
    PRIMARY = "primary"
    GOVERNMENT = "government"
    ACADEMIC = "academic"
    TRUSTED = "trusted"
    LOW = "low"
    UNVERIFIED = "unverified"
    BLOCKED = "blocked"

    @property
    def label(self) -> str:
        return self.value.upper()


HIGH_TRUST = {TrustLevel.PRIMARY, TrustLevel.GOVERNMENT, TrustLevel.ACADEMIC}
DEFAULT_WEIGHTS = {
    TrustLevel.PRIMARY: 1.0,
    TrustLevel.GOVERNMENT: 0.95,
    TrustLevel.ACADEMIC: 0.90,
    TrustLevel.TRUSTED: 0.75,
    TrustLevel.LOW: 0.40,
    TrustLevel.UNVERIFIED: 0.30,
    TrustLevel.BLOCKED: 0.0,
}


def _domain(value: str) -> str:
    text = value.strip().lower().rstrip(".")
    if not text or " " in text or "/" in text:
        raise ValueError(f"{value!r} is not a domain name")
    return text.removeprefix("www.")


class Politeness(BaseModel):
    model_config = ConfigDict(extra="forbid")
    qps: float = Field(0.5, gt=0, le=100)
    max_requests_per_day: int = Field(1000, ge=1)


DomainName = Annotated[str, AfterValidator(_domain)]


class DomainRule(BaseModel):
    model_config = ConfigDict(extra="forbid")
    domain: DomainName
    trust_level: TrustLevel
    qps: float | None = Field(None, gt=0, le=100)
    max_requests_per_day: int | None = Field(None, ge=1)
    max_pages_per_day: int | None = Field(None, ge=1)
    headful_ratio: float | None = Field(None, ge=0, le=1)


class SuffixRule(BaseModel):
    model_config = ConfigDict(extra="forbid")
    suffix: str
    trust_level: TrustLevel

    @field_validator("suffix")
    @classmethod
    def _suffix(cls, value: str) -> str:
        text = value.strip().lower()
        return text if text.startswith(".") else f".{text}"


class UserOverride(BaseModel):
    model_config = ConfigDict(extra="forbid")
    domain: DomainName
    trust_level: TrustLevel
    reason: str = Field(min_length=1)
    added_at: str | None = None


class DomainPolicyFile(BaseModel):
    """The schema of config/domains.yaml."""

    model_config = ConfigDict(extra="forbid")
    default_trust_level: TrustLevel = TrustLevel.UNVERIFIED
    trust_weights: dict[TrustLevel, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    default_politeness: Politeness = Field(default_factory=Politeness)
    domains: list[DomainRule] = Field(default_factory=list)
    suffix_rules: list[SuffixRule] = Field(default_factory=list)
    user_overrides: list[UserOverride] = Field(default_factory=list)

    @model_validator(mode="after")
    def _complete_weights(self) -> DomainPolicyFile:
        for level, weight in self.trust_weights.items():
            if not 0.0 <= weight <= 1.0:
                raise ValueError(f"trust weight of {level.value} must lie in [0, 1], got {weight}")
        self.trust_weights = {**DEFAULT_WEIGHTS, **self.trust_weights}
        return self


class PolicyError(ValueError):
    """config/domains.yaml is invalid; the message names the file and line."""


def _line_of(root: yaml.Node, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the YAML node at a pydantic error location."""
    node = root
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == str(key)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            match = node.value[key]
        else:
            match = None
        if match is None:
            break
        node = match
    return node.start_mark.line + 1 if node is not None else None


def parse_policy(text: str, source: str = "domains.yaml") -> DomainPolicyFile:
    try:
        check_yaml_shape(text)  # before building it: PyYAML's composer recurses once per level
    except ConfigFileError as exc:
        raise PolicyError(f"{source}: the domain policy {exc}") from None
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        raise PolicyError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    try:
        return DomainPolicyFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        line = _line_of(root, tuple(first["loc"])) if root is not None else None
        where = f"{source}:{line}" if line else source
        path = ".".join(str(p) for p in first["loc"])
        raise PolicyError(f"{where}: {path}: {first['msg']}") from exc


class DomainPolicy:
    """The policy in force, reloaded when its file changes.

    Fails closed: a file that is missing or invalid when first read raises PolicyError (file and
    line), since an empty policy would lift every block and demote every primary source. Only a
    bad *later* edit keeps the last good policy this object loaded, and says so in the log.
    """

    def __init__(self, path: Path | None = None):
        self.path = Path(path or DOMAINS_FILE)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self.last_error: str | None = None
        self.loaded_at: datetime | None = None
        stamp = self._stat()  # before reading: an edit made meanwhile is reloaded next time
        self._policy = self._read()
        self._stamp = stamp
        self.loaded_at = datetime.now()
        log.info("domain policy loaded from %s", self.path)

    def _stat(self) -> tuple[int, int] | None:
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def _read(self) -> DomainPolicyFile:
        try:
            text = read_config_text(self.path)  # a regular file of at most 1 MiB
        except FileNotFoundError:
            raise PolicyError(
                f"{self.path}: domain policy file not found; restore config/domains.yaml "
                "or point $LYRA_DOMAINS at a policy file"
            ) from None
        except ConfigFileError as exc:
            raise PolicyError(f"{self.path}: domain policy file {exc}") from None
        return parse_policy(text, str(self.path))

    def _reload(self) -> None:
        stamp = self._stat()
        if stamp == self._stamp:
            return
        with self._lock:
            if stamp == self._stamp:
                return
            self._stamp = stamp
            try:
                self._policy = self._read()
            except PolicyError as exc:
                self.last_error = (
                    f"{exc} (running on the last good policy, loaded from {self.path} "
                    f"at {self.loaded_at:%Y-%m-%d %H:%M:%S})"
                )
                log.error("domain policy not reloaded: %s", self.last_error)
                return
            self.last_error = None
            self.loaded_at = datetime.now()
            log.info("domain policy reloaded from %s", self.path)

    @property
    def policy(self) -> DomainPolicyFile:
        self._reload()
        return self._policy

    def _listed(self, domain: str, rules: list) -> Any:
        """The rule for ``domain`` or its closest listed parent domain."""
        by_domain = {r.domain: r for r in rules}
        parts = domain.split(".")
        for i in range(len(parts)):
            rule = by_domain.get(".".join(parts[i:]))
            if rule is not None:
                return rule
        return None

    def trust_level(self, domain: str | None) -> TrustLevel:
        policy = self.policy
        if not domain:
            return policy.default_trust_level
        name = domain.lower().removeprefix("www.")
        override = self._listed(name, policy.user_overrides)
        if override is not None:
            return override.trust_level
        rule = self._listed(name, policy.domains)
        if rule is not None:
            return rule.trust_level
        suffixes = sorted(
            (s for s in policy.suffix_rules if name.endswith(s.suffix) or f".{name}" == s.suffix),
            key=lambda s: -len(s.suffix),
        )
        return suffixes[0].trust_level if suffixes else policy.default_trust_level

    def override_for(self, domain: str) -> UserOverride | None:
        return self._listed(domain.lower().removeprefix("www."), self.policy.user_overrides)

    def weight(self, level: TrustLevel) -> float:
        return self.policy.trust_weights[level]

    def politeness(self, domain: str) -> Politeness:
        policy = self.policy
        rule = self._listed(domain.lower().removeprefix("www."), policy.domains)
        base = policy.default_politeness
        if rule is None:
            return base
        return Politeness(
            qps=rule.qps or base.qps,
            max_requests_per_day=rule.max_requests_per_day or base.max_requests_per_day,
        )


_policies: dict[str, DomainPolicy] = {}
_policies_lock = threading.Lock()


def policy_at(path: str | Path | None = None) -> DomainPolicy:
    """One hot-reloading policy per file and process; PolicyError when the file has never loaded
    in this process and is missing or invalid now (nothing is cached then, so a fix takes at once)."""
    key = str(Path(path or DOMAINS_FILE).resolve())
    with _policies_lock:
        if key not in _policies:
            _policies[key] = DomainPolicy(Path(key))
        return _policies[key]


class DomainTrust(ConfigurableResource):
    """The domain policy as a Dagster resource (``path`` empty: config/domains.yaml or $LYRA_DOMAINS)."""

    path: str = ""

    def setup_for_execution(self, context: InitResourceContext) -> None:
        # A run never starts on a policy that was never valid; a stale one is said in the run's log.
        policy = self.policy()
        if policy.last_error:
            get_dagster_logger().warning("domain policy: %s", policy.last_error)

    def policy(self) -> DomainPolicy:
        return policy_at(self.path or None)

    def level(self, domain: str | None) -> str:
        return self.policy().trust_level(domain).value


def user_domain_rules(store) -> list:
    """The active ``domain_block`` / ``domain_unblock`` rules users set through feedback (docs/feedback.md)."""
    from lyra_core.domain_rules import DomainRule

    rows = store.fetch_df(
        "SELECT id, domain_pattern, decision, coalesce(reason, '') AS reason, created_at "
        "FROM domain_override_rules WHERE is_active ORDER BY created_at, id"
    )
    return [DomainRule(**r) for r in rows.to_dict("records")]
