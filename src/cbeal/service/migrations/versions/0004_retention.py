"""streams: how far retention archived each stream (the last archived sequence number and
how many samples left the database)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("streams") as batch:
        batch.add_column(
            sa.Column("archived_through", sa.BigInteger(), nullable=False, server_default="0")
        )
        batch.add_column(sa.Column("archived", sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("streams") as batch:
        batch.drop_column("archived")
        batch.drop_column("archived_through")
