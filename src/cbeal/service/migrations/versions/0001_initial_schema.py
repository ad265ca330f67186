"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "streams",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("owner", sa.String(length=100), nullable=True),
        sa.Column("lease_until", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("revoked_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "checkpoints",
        sa.Column("stream_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("model", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["stream_id"],
            ["streams.id"],
        ),
        sa.PrimaryKeyConstraint("stream_id", "seq"),
    )
    op.create_table(
        "events",
        sa.Column("stream_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["stream_id"],
            ["streams.id"],
        ),
        sa.PrimaryKeyConstraint("stream_id", "seq"),
    )
    op.create_table(
        "samples",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("stream_id", sa.Integer(), nullable=False),
        sa.Column("sample_id", sa.String(length=200), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("x", sa.JSON(), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.Column("decision_id", sa.String(length=64), nullable=True),
        sa.Column("acquire", sa.Boolean(), nullable=False),
        sa.Column("p_acquire", sa.Float(), nullable=False),
        sa.Column("prediction", sa.JSON(), nullable=True),
        sa.Column("certainty", sa.Float(), nullable=True),
        sa.Column("model_version", sa.Integer(), nullable=False),
        sa.Column("decision", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["stream_id"],
            ["streams.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("stream_id", "sample_id", name="uq_samples_stream_sample"),
    )
    with op.batch_alter_table("samples", schema=None) as batch_op:
        batch_op.create_index("ix_samples_stream_seq", ["stream_id", "seq"], unique=False)

    op.create_table(
        "tasks",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("stream_id", sa.Integer(), nullable=False),
        sa.Column("sample_pk", sa.BigInteger(), nullable=False),
        sa.Column("decision_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("skips", sa.Integer(), nullable=False),
        sa.Column("lease_owner", sa.String(length=100), nullable=True),
        sa.Column("lease_until", sa.Float(), nullable=True),
        sa.Column("label", sa.JSON(), nullable=True),
        sa.Column("request_id", sa.String(length=100), nullable=True),
        sa.Column("labelled_at", sa.Float(), nullable=True),
        sa.Column("labelled_by", sa.String(length=100), nullable=True),
        sa.Column("learned_at", sa.Float(), nullable=True),
        sa.Column("reward", sa.Float(), nullable=True),
        sa.Column("correct", sa.Boolean(), nullable=True),
        sa.ForeignKeyConstraint(
            ["sample_pk"],
            ["samples.id"],
        ),
        sa.ForeignKeyConstraint(
            ["stream_id"],
            ["streams.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("sample_pk"),
    )
    with op.batch_alter_table("tasks", schema=None) as batch_op:
        batch_op.create_index(
            "ix_tasks_queue", ["stream_id", "status", "skips", "id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("tasks", schema=None) as batch_op:
        batch_op.drop_index("ix_tasks_queue")

    op.drop_table("tasks")
    with op.batch_alter_table("samples", schema=None) as batch_op:
        batch_op.drop_index("ix_samples_stream_seq")

    op.drop_table("samples")
    op.drop_table("events")
    op.drop_table("checkpoints")
    op.drop_table("tokens")
    op.drop_table("streams")
