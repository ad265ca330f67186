"""Alembic environment: migrations run on the connection the service hands over."""

from __future__ import annotations

from alembic import context

from cbeal.service.store.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the service always passes its connection
    raise RuntimeError("run migrations through cbeal.service.store.db.migrate(engine)")
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
