"""Reading a configuration file Lyra is pointed at (``$LYRA_SETTINGS``, ``$LYRA_DOMAINS``,
``config/``) with bounds, so a hostile or mistaken path is one line rather than a hang or a crash:
only a regular file is opened (a FIFO would block for ever, ``/dev/zero`` never ends, a folder is
no file), at most :data:`MAX_CONFIG_BYTES` of it are read, and YAML nested deeper than
:data:`MAX_CONFIG_DEPTH` levels (PyYAML builds nodes recursively: ten thousand ``[`` end in a
RecursionError) or holding more than :data:`MAX_CONFIG_VALUES` values once its aliases are expanded
(a "billion laughs" file) is refused before it is built.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

MAX_CONFIG_BYTES = 1 << 20  # the commented settings file is about 20 KB, the domain policy less
MAX_CONFIG_DEPTH = 32  # the deepest real section (browser.engine_urls, a domain rule) nests 3 levels
MAX_CONFIG_VALUES = 100_000  # config/settings.yaml holds about 250, config/domains.yaml about 300


class ConfigFileError(ValueError):
    """The file cannot be a configuration file; the message (one line) says why, without its name."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_config_text(path: Path) -> str:
    """The UTF-8 text of the regular file ``path``. FileNotFoundError when it does not exist (the
    caller says what to do); ConfigFileError when it is no regular file, is larger than
    MAX_CONFIG_BYTES, cannot be read or is not UTF-8."""
    try:
        mode = os.stat(path).st_mode  # before opening: opening a FIFO waits for a writer
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise ConfigFileError(f"cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(mode):
        raise ConfigFileError(f"is {_kind(mode)}, not a regular file; name a YAML file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ConfigFileError(f"cannot be read: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode  # the file opened, should the path have been swapped
            if not stat.S_ISREG(mode):
                raise ConfigFileError(f"is {_kind(mode)}, not a regular file; name a YAML file")
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigFileError(f"cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigFileError(
            f"is larger than {MAX_CONFIG_BYTES // 1024:,} KB; a configuration file is far smaller"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"is not UTF-8 text (byte {exc.start:,})") from None


def check_yaml_shape(text: str) -> None:
    """ConfigFileError when ``text``'s YAML nests deeper than MAX_CONFIG_DEPTH levels or holds more
    than MAX_CONFIG_VALUES values once its aliases are expanded (``*a`` counts as all that its
    anchor ``&a`` holds: nine aliases of nine aliases of … are a billion values). The parser's events
    are read one by one (no recursion), stopping at the first excess; a YAML error is left for the
    loader, which reports it with its line."""
    sizes, anchored, anchors = [0], [], {}  # values in each open collection; their anchors
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                sizes.append(1)
                anchored.append(event.anchor)
                if len(anchored) > MAX_CONFIG_DEPTH:
                    raise ConfigFileError(
                        f"nests deeper than {MAX_CONFIG_DEPTH} levels (line {event.start_mark.line + 1}); "
                        "a configuration file is a few levels deep"
                    )
                continue
            if isinstance(event, yaml.CollectionEndEvent):
                size, anchor = sizes.pop(), anchored.pop()
            elif isinstance(event, yaml.ScalarEvent):
                size, anchor = 1, event.anchor
            elif isinstance(event, yaml.AliasEvent):
                size, anchor = anchors.get(event.anchor, 1), None
            else:  # the stream's and documents' start and end
                continue
            if anchor:
                anchors[anchor] = size
            sizes[-1] += size
            if sum(sizes) > MAX_CONFIG_VALUES:
                raise ConfigFileError(
                    f"holds more than {MAX_CONFIG_VALUES:,} values (aliases expanded, line "
                    f"{event.start_mark.line + 1}); a configuration file holds far fewer"
                )
    except yaml.YAMLError:
        return


def load_config_yaml(text: str) -> Any:
    """``text`` as YAML (``yaml.safe_load``) once its depth is checked; ConfigFileError or
    yaml.YAMLError otherwise."""
    check_yaml_shape(text)
    return yaml.safe_load(text)
