"""The service's request and response models (pydantic): every route declares both, so the
OpenAPI document describes every reply."""
