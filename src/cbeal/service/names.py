"""The names a client of the service types, each rule written once: stream names, token
names and roles.

Stream and token names stand in URL paths (``/api/v1/streams/{name}/samples``,
``/api/v1/tokens/{name}/revoke``), so they hold nothing that needs encoding. The schemas,
the routes, the engine, the fast samples path and the CLI all read them from here.

>>> import re
>>> bool(re.match(STREAM_NAME, "line-7.welds")), bool(re.match(STREAM_NAME, "-7"))
(True, False)
>>> bool(re.match(TOKEN_NAME, "ana@plant")), bool(re.match(STREAM_NAME, "ana@plant"))
(True, False)
>>> ROLES
('ingest', 'annotate', 'review', 'admin')
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["ROLES", "STREAM_NAME", "TOKEN_NAME", "Role"]

#: a stream's name: 1 to 100 letters, digits, '_', '.' or '-', the first a letter or digit
STREAM_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"
#: a token's name: as a stream's, and '@' too (a person's address)
TOKEN_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$"

#: what a token may do: send samples; label; label and review; everything
Role = Literal["ingest", "annotate", "review", "admin"]
ROLES: tuple[str, ...] = get_args(Role)
