"""The store and the settings as Dagster sees them.

``LyraStore`` and ``LyraSettings`` are plain pydantic models, so the command line and the MCP
server read the store and the settings without importing Dagster. This module makes them
Dagster's: assets, checks, sensors and schedules take them as ``ResourceParam[LyraStore]`` and
``ResourceParam[LyraSettings]`` (Dagster's annotation for a resource of a plain type); each settings section has
a Dagster ``Config`` twin (its fields, defaults, checks and methods) for the resources that carry
a section; and :func:`settings_resource` turns settings into a ``ConfigurableResource`` whose
sections are typed config, so the Dagster UI lists the values a run used. ``lyra_assets`` imports
it before any asset is defined."""

from __future__ import annotations

from dagster import Config, ConfigurableResource
from pydantic import BaseModel, Field, create_model

from lyra_resources.settings.loading import LyraSettings


def _as_config(section: type[BaseModel]) -> type[Config]:
    return type(section.__name__, (section, Config), {"__module__": __name__, "__doc__": section.__doc__})


# settings field name → its section as Dagster config
SECTION_CONFIGS: dict[str, type[Config]] = {
    name: _as_config(field.annotation)
    for name, field in LyraSettings.model_fields.items()
    if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
}

SettingsResource: type[ConfigurableResource] = create_model(
    "SettingsResource",
    __base__=(LyraSettings, ConfigurableResource),
    __module__=__name__,
    __doc__="Lyra's settings as a Dagster resource; each section is typed config the UI shows.",
    **{name: (config, Field(default_factory=config)) for name, config in SECTION_CONFIGS.items()},
)


def section_config(section: BaseModel, name: str) -> Config:
    """The settings section ``section`` (the settings' field ``name``) as its Dagster config twin."""
    twin = SECTION_CONFIGS[name]
    return section if isinstance(section, twin) else twin(**section.model_dump())


def settings_resource(settings: LyraSettings) -> LyraSettings:
    """``settings`` as the Dagster resource the assets receive (the same values)."""
    return settings if isinstance(settings, SettingsResource) else SettingsResource(**settings.model_dump())
