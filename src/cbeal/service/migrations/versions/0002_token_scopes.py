"""tokens: stream scopes, last use, who created and revoked them

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("streams", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("last_used_at", sa.Float(), nullable=True))
        batch.add_column(sa.Column("created_by", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("revoked_by", sa.String(length=100), nullable=True))
        batch.create_index("ix_tokens_name", ["name"])


def downgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.drop_index("ix_tokens_name")
        batch.drop_column("revoked_by")
        batch.drop_column("created_by")
        batch.drop_column("last_used_at")
        batch.drop_column("streams")
