"""answers: every expert's answer to a task and every review's settlement

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27

A stream may ask several experts about one part (``labels_per_part``,
``second_opinion_below``); each answer is a row here. The labels given before this
revision are copied in as one answer each, so the agreement report and the export count
them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    big = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "answers",
        sa.Column("id", big, primary_key=True, autoincrement=True),
        sa.Column("task_id", sa.BigInteger(), sa.ForeignKey("tasks.id"), nullable=False),
        sa.Column("stream_id", sa.Integer(), sa.ForeignKey("streams.id"), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("label", sa.JSON(), nullable=True),
        sa.Column("answered_by", sa.String(length=100), nullable=False),
        sa.Column("lease_key", sa.String(length=100), nullable=False),
        sa.Column("request_id", sa.String(length=100), nullable=False),
        sa.Column("answered_at", sa.Float(), nullable=False),
        sa.UniqueConstraint("task_id", "lease_key", "kind", name="uq_answers_task_key_kind"),
    )
    op.create_index("ix_answers_stream", "answers", ["stream_id", "id"])
    # the labels of before: one answer each (by its labeller; the key is the name, since
    # the lease key was not kept)
    op.execute(
        "INSERT INTO answers (task_id, stream_id, kind, label, answered_by, lease_key, "
        "request_id, answered_at) "
        "SELECT id, stream_id, 'label', label, labelled_by, labelled_by, "
        "COALESCE(request_id, 'before-0003'), labelled_at FROM tasks "
        "WHERE status IN ('labelled', 'learned') AND labelled_by IS NOT NULL "
        "AND labelled_at IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_index("ix_answers_stream", table_name="answers")
    op.drop_table("answers")
