"""URLs: which ones may be fetched, one key per page, the domain a page belongs to, and the
target behind a search engine's redirect link.

Nothing here touches the network: the egress gate resolves hosts and hands the addresses to
``address_refusal``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import socket
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qs, urljoin, urlsplit, urlunsplit

# -- URL safety ------------------------------------------------------------------------------------

FETCHABLE_SCHEMES = ("http", "https")
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def url_refusal(url: str) -> str | None:
    """Why ``url`` may not be fetched from its text alone (scheme, host), or None when it may."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError as exc:
        return f"malformed URL {url[:200]!r}: {exc}"
    scheme = parts.scheme.lower()
    if scheme not in FETCHABLE_SCHEMES:
        return f"only http(s) URLs are fetched, not {scheme or 'scheme-less'}: {url[:200]!r}"
    if not host:
        return f"URL has no host: {url[:200]!r}"
    return None


def parse_networks(values: Iterable[str]) -> list[IpNetwork]:
    """Networks from settings ('127.0.0.1/32', '::1'); a bad entry is an error naming it."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError as exc:
            raise ValueError(f"browser.allowed_networks: {value!r} is not an IP network: {exc}") from exc
    return networks


# IPv6 ranges whose last 32 bits are an IPv4 address a packet may reach: IPv4-compatible (::/96,
# deprecated), IPv4-translated (SIIT) and NAT64's well-known prefix.
IPV4_IN_LAST_32_BITS = tuple(ipaddress.IPv6Network(n) for n in ("::/96", "::ffff:0:0:0/96", "64:ff9b::/96"))
# NAT64 prefixes for local use (RFC 8215) may carry the IPv4 address anywhere: none is public.
LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to: IPv4-mapped, -compatible and -translated,
    NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: its server and its client)."""
    found = [address.ipv4_mapped] if address.ipv4_mapped is not None else []
    if any(address in network for network in IPV4_IN_LAST_32_BITS):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    return found


def is_public_address(address: IpAddress) -> bool:
    """True only for globally routable unicast addresses. An IPv6 address that carries an IPv4
    address (mapped, compatible, NAT64, 6to4, Teredo) is public only when that IPv4 address is,
    so ``[::7f00:1]`` or ``[64:ff9b::a00:1]`` cannot reach loopback or a private network."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in LOCAL_NAT64 or address.is_site_local:
            return False
        if address.ipv4_mapped is not None:  # the IPv4 address itself, on a dual-stack socket
            return is_public_address(address.ipv4_mapped)
        carried = embedded_ipv4(address)
        if carried and not all(is_public_address(v4) for v4 in carried):
            return False
    return address.is_global and not address.is_multicast


def address_refusal(
    host: str,
    addresses: Sequence[str],
    *,
    allow_private: bool = False,
    allowed_networks: Sequence[IpNetwork] = (),
) -> str | None:
    """Why a host resolving to ``addresses`` may not be fetched, or None.

    Every address must be public (or inside ``allowed_networks``, or ``allow_private`` set):
    one private answer among public ones is refused too, since the browser may pick it.
    """
    if not addresses:
        return f"{host} did not resolve to any address"
    for text in addresses:
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone id
        except ValueError:
            return f"{host} resolved to {text!r}, which is not an IP address"
        if allow_private or is_public_address(address):
            continue
        if any(address in network for network in allowed_networks):
            continue
        return (
            f"{host} resolves to {address}, a private, loopback, link-local or reserved address "
            "(refused unless browser.allow_private_addresses or browser.allowed_networks allows it)"
        )
    return None


def literal_address(host: str) -> IpAddress | None:
    """The address a host written as an IP literal names, in any form a resolver or browser reads
    as one (``[::1]``, ``127.1``, ``0x7f.0.0.1``, ``2130706433``); None for a name."""
    host = host.strip("[]").split("%", 1)[0].rstrip(".")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not host or not all(
        part and (part.isdigit() or part.lower().startswith("0x")) for part in host.split(".")
    ):
        return None
    try:  # the legacy IPv4 forms getaddrinfo and the WHATWG URL parser accept (octal, hex, fewer parts)
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def local_host_refusal(url: str) -> str | None:
    """Why ``url`` names, in its text alone, a host that is not a public one: a user name or
    password in it, ``localhost`` (and any ``*.localhost``), or an IP literal that is loopback,
    private, link-local or reserved (``is_public_address``, the egress gate's test). A report links
    no such URL: the gate refuses to fetch it, and a reader's click would reach their own machine or
    network. Names that only resolve to such addresses are the gate's to find out (it resolves)."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower().rstrip(".")
    except ValueError as exc:
        return f"malformed URL: {exc}"
    if parts.username is not None or parts.password is not None:
        return "the URL holds a user name or password"
    if host == "localhost" or host.endswith(".localhost"):
        return f"{host} is this machine"
    address = literal_address(host)
    if address is not None and not is_public_address(address):
        return f"{address} is a private, loopback, link-local or reserved address"
    return None


def canonical_url(url: str) -> str:
    """Scheme and host lower-cased, default port and fragment dropped: one page, one key."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or (scheme, port) in (("http", 80), ("https", 443)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def url_domain(url: str | None) -> str:
    """Host without 'www.' (what trust levels and politeness attach to); '' when there is none."""
    if not url:
        return ""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.lower().rstrip(".").removeprefix("www.")


def web_page_id(final_url: str) -> str:
    """Stable id of a fetched page: a hash of its canonical final URL (``pg_`` like every page)."""
    return "pg_" + hashlib.sha1(f"{canonical_url(final_url)}\x1fweb".encode()).hexdigest()[:16]


# -- redirect links of search engines --------------------------------------------------------------


def _first_param(query: str, *names: str) -> str | None:
    params = parse_qs(query, keep_blank_values=False)
    for name in names:
        if params.get(name):
            return params[name][0]
    return None


def _bing_target(encoded: str) -> str | None:
    # Bing's /ck/a links carry the target as 'a1' + unpadded base64url.
    if not encoded.startswith("a1"):
        return None
    payload = encoded[2:]
    try:
        return base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def unwrap_redirect(href: str | None, base_url: str | None = None) -> str | None:
    """The target of a result link: absolute, with the engines' click-tracking redirects removed
    (DuckDuckGo ``/l/?uddg=``, Google ``/url?q=``, Scholar ``/scholar_url?url=``, Bing ``/ck/a?u=``).
    None for links that lead nowhere fetchable (``javascript:``, fragments, other schemes)."""
    if not href:
        return None
    href = href.strip()
    if href.startswith("#"):
        return None
    url = urljoin(base_url, href) if base_url else ("https:" + href if href.startswith("//") else href)
    for _ in range(3):  # a wrapper may wrap another one
        try:
            parts = urlsplit(url)
        except ValueError:
            return None
        host = (parts.hostname or "").lower()
        path = parts.path
        target = None
        if host.endswith("duckduckgo.com") and path.startswith("/l/"):
            target = _first_param(parts.query, "uddg")
        elif path in ("/url", "/scholar_url", "/interstitial") and (
            "google." in host or not host or host == (urlsplit(base_url or "").hostname or "")
        ):
            target = _first_param(parts.query, "q", "url")
        elif host.endswith("bing.com") and path.startswith("/ck/"):
            encoded = _first_param(parts.query, "u")
            target = _bing_target(encoded) if encoded else None
        if not target:
            break
        url = urljoin(url, target)
    if url_refusal(url) is not None:
        return None
    return url
