"""Several experts on one line: the stream's settings and the agreement report."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["AgreementOut", "AlphaPoint", "ExpertSettingsIn", "LabellerOut", "PartsOut"]


class ExpertSettingsIn(BaseModel):
    """A change of how many experts answer each part (fields left out stay as they are;
    ``second_opinion_below: null`` turns second opinions off)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    labels_per_part: int | None = Field(default=None, ge=1, le=10)
    second_opinion_below: float | None = Field(default=None, gt=0, le=1)

    @model_validator(mode="after")
    def _something(self) -> ExpertSettingsIn:
        if not self.model_fields_set:
            raise ValueError(
                "send labels_per_part (1 to 10) and/or second_opinion_below (a certainty in "
                '(0, 1], or null for none), e.g. {"second_opinion_below": 0.7}'
            )
        if "labels_per_part" in self.model_fields_set and self.labels_per_part is None:
            raise ValueError("labels_per_part is a whole number from 1 to 10, not null")
        return self


class PartsOut(BaseModel):
    agreed: int = Field(description="parts whose several answers agreed")
    disputed: int = Field(description="parts whose answers differ, waiting for review")
    settled: int = Field(description="disputed parts a reviewer settled")


class LabellerOut(BaseModel):
    name: str
    answers: int = Field(description="labels this token's name gave")
    agreement: float | None = Field(
        description="share of its answers equal to the part's final label (regression: "
        "within the tolerance); None while none of its parts has a final label"
    )


class AlphaPoint(BaseModel):
    t: float = Field(description="when the part's last answer came (UTC seconds)")
    parts: int = Field(description="multiply-answered parts up to then")
    alpha: float | None


class AgreementOut(BaseModel):
    alpha: float | None = Field(
        description="Krippendorff's α over the parts with two answers or more (nominal for "
        "classes, interval for measured values); None with fewer than two such parts"
    )
    level: str = Field(description="nominal or interval")
    parts: PartsOut
    multiply_answered: int = Field(description="parts with two answers or more")
    labellers: list[LabellerOut]
    history: list[AlphaPoint] = Field(description="α over time, for the dashboard")
