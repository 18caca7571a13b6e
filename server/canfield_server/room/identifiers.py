"""What a room hands out and what it counts by, sans I/O: room codes, member
ids, the tokens that resume a seat (stored only as their hash), and the
network a client address belongs to."""

from __future__ import annotations

import hashlib
import ipaddress
import secrets

from canfield.textinput import ascii_upper, excerpt, strip_spaces
from canfield_protocol import ErrorCode, ProtocolError

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "new_room_code",
    "normalize_room_code",
    "new_member_id",
    "new_token",
    "token_hash",
    "address_prefix",
]

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
#: a room code longer than this (spaces around it included) is refused unread
_CODE_TEXT_MAX = 64


def new_room_code() -> str:
    """Six characters from an unambiguous alphabet: 31**6 ~ 887 million codes."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_room_code(text: str) -> str:
    """Accept any case and surrounding ASCII spaces; refuse anything not a code.

    Only ASCII is read: only ``a-z`` are folded (``str.upper`` would make
    ``'ſ'`` an ``S``), and the error quotes at most 12 characters."""
    code = ascii_upper(strip_spaces(text)) if len(text) <= _CODE_TEXT_MAX else ""
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"no room {excerpt(strip_spaces(text), 12)}")
    return code


def new_member_id() -> str:
    """A short public id, safe to broadcast."""
    return secrets.token_hex(4)


def new_token() -> str:
    """The secret that resumes a seat: 144 random bits, URL-safe."""
    return secrets.token_urlsafe(18)


def token_hash(token: str) -> str:
    """Tokens are stored hashed: reading Redis does not hand out seats."""
    return hashlib.sha256(token.encode()).hexdigest()


def address_prefix(ip: str | None, v4_bits: int = 24, v6_bits: int = 64) -> str | None:
    """The network a client address belongs to, as one household or classroom
    is seen from outside (an IPv4 /24, an IPv6 /64 by default): what identity
    budgets and the who-may-rate-whom rules count by. ``None`` for no address
    (in-process peers) or one that does not parse."""
    if not ip:
        return None
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    bits = v4_bits if address.version == 4 else v6_bits
    return str(ipaddress.ip_network(f"{address}/{bits}", strict=False))
