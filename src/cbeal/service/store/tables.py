"""The service's tables (SQLAlchemy Core). Alembic migrations create and upgrade them.

* ``streams``: one row per line or machine — its configuration, the last event it wrote
  (``last_seq``, the fencing token every write checks) and the lease of the process that
  owns it, and how far retention archived it.
* ``events``: the stream's log, in order: each sample, label, cancellation, refit and
  start. The model is a pure function of this log (plus the latest checkpoint).
* ``samples``: every sample received, with the decision made for it (acquired or not).
* ``tasks``: the acquired samples, waiting for, or holding, the expert's label.
* ``checkpoints``: the model saved after event ``seq`` (cbeal's safe model-file format).
* ``tokens``: API tokens, as SHA-256 hashes only, with their role and scope.
* ``answers``: every answer an expert gave to a task (a label or "cannot tell"), and a
  reviewer's settlement of a disputed one: who, when, what (0003).

Times are UTC seconds since the epoch (floats): the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    UniqueConstraint,
)

__all__ = ["answers", "checkpoints", "events", "metadata", "samples", "streams", "tasks", "tokens"]

metadata = MetaData()

streams = Table(
    "streams",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("config", JSON, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("last_seq", BigInteger, nullable=False, default=0),
    Column("owner", String(100), nullable=True),
    Column("lease_until", Float, nullable=True),
    # 0003: retention moved the stream's unlabelled samples up to this sequence number to
    # the archive, this many in all (see store.retention)
    Column("archived_through", BigInteger, nullable=False, server_default="0"),
    Column("archived", BigInteger, nullable=False, server_default="0"),
)

events = Table(
    "events",
    metadata,
    Column("stream_id", Integer, ForeignKey("streams.id"), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),
    Column("payload", JSON, nullable=False),
    Column("created_at", Float, nullable=False),
)

samples = Table(
    "samples",
    metadata,
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("stream_id", Integer, ForeignKey("streams.id"), nullable=False),
    Column("sample_id", String(200), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("x", JSON, nullable=False),
    Column("received_at", Float, nullable=False),
    Column("decision_id", String(64), nullable=True),
    Column("acquire", Boolean, nullable=False),
    Column("p_acquire", Float, nullable=False),
    Column("prediction", JSON, nullable=True),
    Column("certainty", Float, nullable=True),
    Column("model_version", Integer, nullable=False),
    Column("decision", JSON, nullable=False),
    UniqueConstraint("stream_id", "sample_id", name="uq_samples_stream_sample"),
    Index("ix_samples_stream_seq", "stream_id", "seq"),
)

tasks = Table(
    "tasks",
    metadata,
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("stream_id", Integer, ForeignKey("streams.id"), nullable=False),
    Column("sample_pk", BigInteger, ForeignKey("samples.id"), nullable=False, unique=True),
    Column("decision_id", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("skips", Integer, nullable=False, default=0),
    Column("lease_owner", String(100), nullable=True),
    Column("lease_until", Float, nullable=True),
    Column("label", JSON, nullable=True),
    Column("request_id", String(100), nullable=True),
    Column("labelled_at", Float, nullable=True),
    Column("labelled_by", String(100), nullable=True),
    Column("learned_at", Float, nullable=True),
    Column("reward", Float, nullable=True),
    Column("correct", Boolean, nullable=True),
    Index("ix_tasks_queue", "stream_id", "status", "skips", "id"),
)

checkpoints = Table(
    "checkpoints",
    metadata,
    Column("stream_id", Integer, ForeignKey("streams.id"), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("model", LargeBinary, nullable=False),
    Column("created_at", Float, nullable=False),
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False),
    Column("role", String(16), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
    Column("revoked_at", Float, nullable=True),
    # 0002: the streams a token is scoped to (SQL NULL: every stream), when it was last
    # used (to the minute), and who created and revoked it
    Column("streams", JSON(none_as_null=True), nullable=True),
    Column("last_used_at", Float, nullable=True),
    Column("created_by", String(100), nullable=True),
    Column("revoked_by", String(100), nullable=True),
    Index("ix_tokens_name", "name"),
)

answers = Table(
    "answers",
    metadata,
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("task_id", BigInteger, ForeignKey("tasks.id"), nullable=False),
    Column("stream_id", Integer, ForeignKey("streams.id"), nullable=False),
    # label (an expert's answer), cannot_tell (an expert abstains) or settle (a review)
    Column("kind", String(16), nullable=False),
    Column("label", JSON(none_as_null=True), nullable=True),
    Column("answered_by", String(100), nullable=False),  # the token's name
    Column("lease_key", String(100), nullable=False),  # one answer per key and kind
    Column("request_id", String(100), nullable=False),
    Column("answered_at", Float, nullable=False),
    UniqueConstraint("task_id", "lease_key", "kind", name="uq_answers_task_key_kind"),
    Index("ix_answers_stream", "stream_id", "id"),
)
