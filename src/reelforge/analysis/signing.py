"""Ed25519 signatures of certification manifests: the supplier's key pair, signing, checking.

The supplier keeps the private key (``reelforge certify keygen``: a PEM file of mode 0600, never in a
package); ``certify --key`` signs the bytes of ``manifest.json`` and writes the signature beside it
(``manifest.sig``, hex). The manifest itself carries the public key and its fingerprint (SHA-256 of the
32 raw public-key bytes), so a changed key changes the signed bytes; a lab compares the fingerprint
``--verify`` prints with the one the supplier declared to it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ALGORITHM = "Ed25519"
PRIVATE_KEY_FILE = "certify-signing-key.pem"
PUBLIC_KEY_FILE = "certify-signing-key.pub.pem"
SIGNATURE = "manifest.sig"


class SigningKeyError(ValueError):
    """A key that cannot be used; the message says why."""


def fingerprint(public: Ed25519PublicKey) -> str:
    """SHA-256 (hex) of the public key's 32 raw bytes."""
    return hashlib.sha256(_raw(public)).hexdigest()


def _raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def generate_key(folder: Path) -> tuple[Path, Path]:
    """A new key pair in ``folder``: the private key (PEM, mode 0600) and the public key (PEM); refuses to
    replace existing files. Returns both paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    private_path, public_path = folder / PRIVATE_KEY_FILE, folder / PUBLIC_KEY_FILE
    for p in (private_path, public_path):
        if p.exists():
            raise SigningKeyError(f"{p} exists: a key is never overwritten (choose another --out)")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    # created with mode 0600 from the start: the key is never readable by others, not even for a moment
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    public_path.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                          serialization.PublicFormat.SubjectPublicKeyInfo))
    return private_path, public_path


def load_private_key(path: Path, package: Path | None = None) -> Ed25519PrivateKey:
    """The Ed25519 private key in PEM file ``path``; refuses a key inside the package folder ``package``, a
    file others can read, and anything but an unencrypted Ed25519 key."""
    path = Path(path)
    if not path.is_file():
        raise SigningKeyError(f"--key {path}: no such key file")
    if package is not None and path.resolve().is_relative_to(Path(package).resolve()):
        raise SigningKeyError(f"--key {path}: the private key must not be inside the package folder {package}")
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        raise SigningKeyError(f"--key {path}: the private key is readable by others (mode "
                        f"{stat.S_IMODE(path.stat().st_mode):o}); make it 600 (chmod 600 {path})")
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"--key {path}: not an unencrypted PEM private key ({exc})") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"--key {path}: not an Ed25519 key (reelforge certify keygen makes one)")
    return key


def signer(key: Ed25519PrivateKey) -> dict[str, str]:
    """What the manifest says of its signer: the algorithm, the public key (hex) and its fingerprint."""
    public = key.public_key()
    return {"algorithm": ALGORITHM, "public_key": _raw(public).hex(), "fingerprint_sha256": fingerprint(public)}


def sign(data: bytes, key: Ed25519PrivateKey) -> str:
    """The signature of ``data`` (hex)."""
    return key.sign(data).hex()


def check(data: bytes, signature_hex: str, who: dict[str, Any] | None) -> str | None:
    """None where ``signature_hex`` is a valid signature of ``data`` by the manifest's signer ``who``;
    else why not, in one line."""
    if not who or who.get("algorithm") != ALGORITHM:
        return f"the manifest names no {ALGORITHM} signer (its 'signer' block is missing or of another algorithm)"
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(who["public_key"]))
        signature = bytes.fromhex(signature_hex.strip())
    except (ValueError, KeyError, TypeError) as exc:
        return f"the signer's public key or the signature is malformed ({exc})"
    if fingerprint(public) != who.get("fingerprint_sha256"):
        return "the signer's fingerprint is not the SHA-256 of its public key"
    try:
        public.verify(signature, data)
    except InvalidSignature:
        return f"{SIGNATURE}: the signature does not match manifest.json (the manifest changed after signing, or " \
               "another key signed it)"
    return None
