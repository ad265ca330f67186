"""How the OPC UA bridge connects: security policy and mode, certificates, user name.

asyncua offers the policies ``Basic256Sha256``, ``Aes128Sha256RsaOaep`` and
``Aes256Sha256RsaPss`` (the deprecated ``Basic128Rsa15`` and ``Basic256`` are not offered
here), each with mode ``Sign`` or ``SignAndEncrypt``. The client's application URI is
taken from its certificate, as servers check.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cbeal.core import ParameterError

__all__ = ["Security"]


@dataclass(frozen=True)
class Security:
    """How to connect: `policy` (``Basic256Sha256``, ``Aes128Sha256RsaOaep``,
    ``Aes256Sha256RsaPss``; None: no security), `mode` (``Sign`` or ``SignAndEncrypt``),
    the client's `certificate` and `private_key` files (PEM or DER), and the server's
    certificate to trust (None: the one the server offers, unverified). `user` and
    `password` log in with a user name (None: anonymous).

    Examples
    --------
    >>> Security().describe()
    'no security, anonymous'
    >>> Security(policy="Basic256Sha256", certificate="bridge.der", private_key="bridge.pem",
    ...          user="line-reader", password="...").describe()
    'Basic256Sha256,SignAndEncrypt, user line-reader'
    """

    policy: str | None = None
    mode: str = "SignAndEncrypt"
    certificate: str | None = None
    private_key: str | None = None
    key_password: str | None = None
    server_certificate: str | None = None
    user: str | None = None
    password: str | None = None

    def describe(self) -> str:
        who = f"user {self.user}" if self.user else "anonymous"
        return f"{self.policy},{self.mode}, {who}" if self.policy else f"no security, {who}"

    async def apply(self, client: Any) -> None:
        if self.user:
            client.set_user(self.user)
            client.set_password(self.password or "")
        if not self.policy:
            return
        from asyncua import ua
        from asyncua.crypto import security_policies, uacrypto

        known = self.policy in ("Basic256Sha256", "Aes128Sha256RsaOaep", "Aes256Sha256RsaPss")
        policy = getattr(security_policies, f"SecurityPolicy{self.policy}", None)
        mode = getattr(ua.MessageSecurityMode, self.mode, None)
        if not known or policy is None or mode is None or self.mode == "None_":
            raise ParameterError(
                f"`security` {self.policy},{self.mode} is not known; use Basic256Sha256, "
                "Aes128Sha256RsaOaep or Aes256Sha256RsaPss with Sign or SignAndEncrypt"
            )
        if not (self.certificate and self.private_key):
            raise ParameterError("`security` needs the client's `cert` and `key` files")
        for path in (self.certificate, self.private_key, self.server_certificate):
            if path and not Path(path).is_file():
                raise ParameterError(f"no file {path} (a certificate or key of `security`)")
        cert = await uacrypto.load_certificate(self.certificate)
        uri = _application_uri(cert)
        if uri:  # the server checks that the session's application URI is the certificate's
            client.application_uri = uri
        await client.set_security(
            policy, self.certificate, self.private_key, self.key_password,
            self.server_certificate, mode,
        )  # fmt: skip


def _application_uri(cert: Any) -> str | None:
    from cryptography import x509

    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return None
    uris = names.get_values_for_type(x509.UniformResourceIdentifier)
    return uris[0] if uris else None
