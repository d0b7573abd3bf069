"""`GET`, `PUT` and `DELETE /relevance/calibration`: the relevance grade recalibrated from the firm's judgments.

`precedente eval --judgments --apply` fits Platt scaling (p' = sigmoid(a * logit(p) + b)) on the shipped model's
probability of the results the firm judged, and stores it here; search applies the active calibration before
the grade's thresholds ("forte", "provável", "fraca"). DELETE returns to the shipped model. Administrators only,
every change audited: a grade lawyers read as "results you can cite" changes for everyone.
"""

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from precedente.services.search.deps import AdminDep, DbDep
from precedente.services.search.engine.relevance import relevance_model
from precedente.services.search.store import audit
from precedente.services.search.store import relevance as store
from precedente.services.search.store.judgments import relevance_model_digest
from precedente.services.search.store.relevance import StoredCalibration

router = APIRouter(tags=["relevance"])

REFIT_MINIMUM = 200  # judged results a calibration must be fitted on (as `precedente eval --judgments` counts)


class CalibrationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: float = Field(gt=0, le=20, description="Slope over logit(p): above 0, so the order of results is kept.")
    b: float = Field(ge=-20, le=20, description="Intercept.")
    judged_results: int = Field(ge=REFIT_MINIMUM, le=10_000_000, description="Judged results it was fitted on.")
    brier_before: float = Field(ge=0, le=1, description="The shipped model's Brier score on them.")
    brier_after: float = Field(ge=0, le=1, description="The refit's, cross-validated over queries.")


class CalibrationState(BaseModel):
    active: StoredCalibration | None = Field(description="What search applies now; null: the shipped model.")
    thresholds: dict[str, float] = Field(description="The shipped grade thresholds, applied after the calibration.")
    relevance_model: str = Field(description="Digest of the shipped model file (as in a judgment's ranking).")
    history: list[StoredCalibration] = Field(description="The last calibrations, newest first.")
    refit_minimum: int = REFIT_MINIMUM


async def _state(db: DbDep) -> CalibrationState:
    model = relevance_model()
    return CalibrationState(
        active=await store.active(db),
        thresholds={"forte": model.strong, "provável": model.probable},
        relevance_model=relevance_model_digest(),
        history=await store.history(db),
    )


@router.get("/relevance/calibration", response_model=CalibrationState)
async def read_calibration(who: AdminDep, db: DbDep) -> CalibrationState:
    """The active calibration (if any) and the last ones."""
    return await _state(db)


@router.put("/relevance/calibration", response_model=CalibrationState)
async def set_calibration(body: CalibrationRequest, who: AdminDep, db: DbDep) -> CalibrationState:
    """Make (a, b) the active calibration; the one it replaces is kept, inactive. This process applies it at
    once, the other replicas within store.relevance.CACHE_SECONDS."""
    stored, previous = await store.put(db, who.user, **body.model_dump())
    detail = body.model_dump() | {"calibration_id": stored.id, "replaced": previous.id if previous else None}
    await audit.record(db, who, "relevance.calibration.set", detail=detail)
    return await _state(db)


@router.delete("/relevance/calibration", response_model=CalibrationState)
async def reset_calibration(who: AdminDep, db: DbDep) -> CalibrationState:
    """Back to the shipped model (nothing to reset is not an error: the state is the one asked for)."""
    previous = await store.reset(db)
    await audit.record(db, who, "relevance.calibration.reset", detail={"reset": previous.id if previous else None})
    return await _state(db)
