"""The service's store: every SQL statement it runs, and nothing else.

``tables`` (the schema, migrated by Alembic), ``db`` (engines, migrations), ``events`` (the
fenced event log), ``leases``, ``checkpoints``, ``streams``, ``samples``, ``tasks``,
``tokens`` and ``reads`` (what the dashboard, the page and exports read). Functions take a
SQLAlchemy connection in a transaction the caller opened, so that one request is one
transaction however many of them it calls.
"""
