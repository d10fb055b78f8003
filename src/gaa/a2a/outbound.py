"""Which addresses GAA's A2A client may contact: the operator's choice, not a request's.

``gaa serve green`` contacts the participants an EvalRequest names; without a policy any caller
could make it reach any address the server can (a cloud metadata service, an internal host).
An :class:`OutboundPolicy` allows loopback by default, plus the operator's ``--allow-host``
entries (host names, addresses or CIDR networks). Names are resolved and every address they
resolve to is checked. Link-local addresses (169.254.0.0/16, fe80::/10) and cloud metadata
addresses are refused unless an entry names that address or a network inside the link-local
range (an allowed host name that resolves there is not enough). The policy is checked before an
assessment starts and again on every request the client sends while it runs (a card's
interface URL included), and the client never follows an agent card to another host.

Known limit: a name is resolved for the check and again when connecting; a DNS server that
answers differently the second time (DNS rebinding) is not caught. Allow addresses or networks
rather than names you do not control.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import anyio

from gaa.errors import A2AError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

LOOPBACK_NETWORKS: tuple[Network, ...] = (
    ipaddress.ip_network("127.0.0.0/8"),
    ipaddress.ip_network("::1/128"),
)
LINK_LOCAL_NETWORKS: tuple[Network, ...] = (
    ipaddress.ip_network("169.254.0.0/16"),
    ipaddress.ip_network("fe80::/10"),
)
METADATA_ADDRESSES: frozenset[Address] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
        "169.254.170.2",  # AWS ECS task metadata
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "168.63.129.16",  # Azure wire server
    )
)
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


class RefusedAddress(A2AError):
    """An address the outbound policy does not allow; the message says why."""


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@dataclass(frozen=True)
class OutboundPolicy:
    """Loopback (unless ``loopback`` is false) and the ``allowed`` entries: host names
    (matched case-insensitively, then their addresses checked as below), addresses and CIDR
    networks."""

    allowed: tuple[str, ...] = ()
    loopback: bool = True
    names: frozenset[str] = field(init=False)
    networks: tuple[Network, ...] = field(init=False)

    def __post_init__(self) -> None:
        names: set[str] = set()
        networks: list[Network] = []
        for entry in self.allowed:
            text = entry.strip().strip("[]")
            if not text:
                continue
            try:
                networks.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                if "/" in text or not all(c.isalnum() or c in "-._" for c in text):
                    raise ValueError(
                        f"--allow-host {entry!r} is neither a host name, an address nor a CIDR "
                        "network (e.g. doctor.example.org, 10.0.0.5, 10.0.0.0/24)"
                    ) from None
                names.add(text.casefold().rstrip("."))
        object.__setattr__(self, "names", frozenset(names))
        object.__setattr__(self, "networks", tuple(networks))

    def _explicit(self, address: Address) -> bool:
        """Whether an entry names ``address`` itself or a network inside link-local."""
        for network in self.networks:
            if address not in network:
                continue
            if network.num_addresses == 1:
                return True
            if any(
                network.version == ll.version and network.subnet_of(ll)  # type: ignore[arg-type]
                for ll in LINK_LOCAL_NETWORKS
            ):
                return True
        return False

    def why_refused(self, host: str, address: Address) -> str | None:
        """Why ``address`` (which ``host`` resolved to) may not be contacted, or None."""
        shown = str(address) if str(address) == host.strip("[]") else f"{host} ({address})"
        if address in METADATA_ADDRESSES or any(address in n for n in LINK_LOCAL_NETWORKS):
            if self._explicit(address):
                return None
            kind = "a cloud metadata" if address in METADATA_ADDRESSES else "a link-local"
            return (
                f"{shown} is {kind} address, refused unless the operator allows exactly it "
                f"(gaa serve green --allow-host {address})"
            )
        if self.loopback and any(address in n for n in LOOPBACK_NETWORKS):
            return None
        if host.casefold().rstrip(".") in self.names:
            return None
        if any(address in network for network in self.networks):
            return None
        allowed = ", ".join((["loopback"] if self.loopback else []) + list(self.allowed))
        return (
            f"{shown} is not an allowed participant host (allowed: {allowed or 'none'}; the "
            "operator adds hosts with gaa serve green --allow-host HOST_OR_CIDR)"
        )

    async def check_url(self, url: str) -> None:
        """Raise :class:`RefusedAddress` unless every address ``url``'s host resolves to may be
        contacted."""
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            raise RefusedAddress(f"{url} is not a usable URL ({exc})") from None
        if parts.scheme not in ("http", "https") or not host:
            raise RefusedAddress(f"{url} is not an http(s) URL with a host")
        for address in await resolve(host, port):
            why = self.why_refused(host, address)
            if why is not None:
                raise RefusedAddress(why)


async def resolve(host: str, port: int) -> list[Address]:
    """Every address ``host`` resolves to (an address resolves to itself)."""
    literal = _address(host)
    if literal is not None:
        return [literal]
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise RefusedAddress(f"{host} does not resolve to an address ({exc})") from None
    addresses: list[Address] = []
    for info in infos:
        address = _address(str(info[4][0]))
        if address is not None and address not in addresses:
            addresses.append(address)
    if not addresses:
        raise RefusedAddress(f"{host} does not resolve to an address")
    return addresses


def same_host(participant_url: str, other_url: str) -> bool:
    """Whether ``other_url`` is on the participant's host (loopback names count as one)."""
    try:
        a = (urlsplit(participant_url).hostname or "").casefold().rstrip(".")
        b = (urlsplit(other_url).hostname or "").casefold().rstrip(".")
    except ValueError:
        return False
    return bool(a) and (a == b or (a in LOOPBACK_NAMES and b in LOOPBACK_NAMES))


_policy: ContextVar[OutboundPolicy | None] = ContextVar("gaa_a2a_outbound_policy", default=None)
_UNSET = object()
_token: ContextVar[object] = ContextVar("gaa_a2a_participant_token", default=_UNSET)


def current_policy() -> OutboundPolicy | None:
    """The policy of the assessment running in this context (None: no policy, as in a plain
    ``inspect eval -T doctor=a2a``)."""
    return _policy.get()


def participant_token() -> tuple[bool, str | None]:
    """(set, token): the bearer token the running assessment sends to participants."""
    value = _token.get()
    if value is _UNSET:
        return False, None
    return True, value if isinstance(value, str) else None


@contextmanager
def outbound(policy: OutboundPolicy, token: str | None) -> Iterator[None]:
    """Within this block (and the tasks it starts), GAA's A2A client obeys ``policy`` and sends
    ``token`` (or no token) to participants, whatever the environment says."""
    policy_reset = _policy.set(policy)
    token_reset = _token.set(token)
    try:
        yield
    finally:
        _token.reset(token_reset)
        _policy.reset(policy_reset)


def policy_from(entries: Sequence[str]) -> OutboundPolicy:
    """The policy for ``--allow-host`` entries (a bad entry: ValueError naming it)."""
    return OutboundPolicy(allowed=tuple(entries))
