"""The annotation service (``cbeal serve``; ``pip install -e '.[service]'``).

Machines send samples, cbeal decides at once which ones an expert should label, the
expert labels them minutes or hours later, the model learns from each label — and nothing
acknowledged is lost when the process is killed. FastAPI on uvicorn; SQLite (embedded
default) or PostgreSQL through SQLAlchemy, schema by Alembic.
"""
