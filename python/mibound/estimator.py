"""One mutual-information estimator with scikit-learn's conventions.

    >>> from mibound import MutualInformation
    >>> mi = MutualInformation(estimator="ksg").fit(X, Y)
    >>> mi.value_, mi.interval_

Parameters are set in the constructor and kept as given (``get_params``/``set_params``, so
``sklearn.base.clone`` works); ``fit`` sets the results, whose names end in ``_``. Only the one
estimator runs (no comparison, no permutation test), with the library's defaults
(:data:`mibound.DEFAULTS`)."""

from __future__ import annotations

import inspect
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import DEFAULTS, Estimate, Record, _call, _float, _native, _options
from ._data import EstimateWarning, is_pandas, warn_each

_D = DEFAULTS


class MutualInformation:
    """The mutual information I(X; Y) by one estimator (``"infonce"``, ``"smile:5"``,
    ``"ksg:k=3"``, ``"flow"``, …; default: the first of the library's default estimators, the
    command line's headline). The other parameters are :func:`mibound.estimate`'s.

    After :meth:`fit`: ``value_`` (in ``unit``), ``interval_`` (``(low, high)``, 95 %, in
    ``unit``), ``kind_`` (``lower``, ``estimate``, ``upper-if-exact``), ``estimate_`` (the whole
    :class:`mibound.Estimate`, values in nats), ``notes_`` (the data rules' notes),
    ``n_features_in_`` (columns of X) and, for DataFrames, ``feature_names_in_`` and
    ``target_names_in_`` (the columns of X and Y used)."""

    def __init__(
        self,
        estimator: str = _D["estimators"][0],
        seed: int = _D["seed"],
        *,
        unit: str = _D["unit"],
        critic: str = _D["critic"],
        hidden: Union[int, Sequence[int]] = _D["hidden"],
        embed: int = _D["embed"],
        batch: int = _D["batch"],
        steps: int = _D["steps"],
        lr: float = _D["lr"],
        weight_decay: float = _D["weight_decay"],
        folds: int = _D["folds"],
        transform: str = _D["transform"],
        max_memory_mb: Optional[int] = _D["max_memory_mb"],
        drop_constant: bool = _D["drop_constant"],
        repeats: str = _D["repeats"],
        discrete_x: Sequence[Union[int, str]] = _D["discrete_x"],
        discrete_y: Sequence[Union[int, str]] = _D["discrete_y"],
        progress: Any = False,
    ) -> None:
        self.estimator = estimator
        self.seed = seed
        self.unit = unit
        self.critic = critic
        self.hidden = hidden
        self.embed = embed
        self.batch = batch
        self.steps = steps
        self.lr = lr
        self.weight_decay = weight_decay
        self.folds = folds
        self.transform = transform
        self.max_memory_mb = max_memory_mb
        self.drop_constant = drop_constant
        self.repeats = repeats
        self.discrete_x = discrete_x
        self.discrete_y = discrete_y
        self.progress = progress

    @classmethod
    def _param_names(cls) -> List[str]:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        """The constructor's parameters as set."""
        return {p: getattr(self, p) for p in self._param_names()}

    def set_params(self, **params: Any) -> "MutualInformation":
        """Sets parameters by name; an unknown name is a ``ValueError``. Returns ``self``."""
        known = self._param_names()
        for k, v in params.items():
            if k not in known:
                raise ValueError(f"invalid parameter '{k}' for MutualInformation; known: {', '.join(known)}")
            setattr(self, k, v)
        return self

    def fit(self, X: Any, Y: Any) -> "MutualInformation":
        """Estimates I(X; Y) from the rows of ``X`` (n × dim_x) and ``Y`` (n × dim_y): arrays or
        pandas DataFrames/Series. Returns ``self``."""
        p = self.get_params()
        progress = p.pop("progress")
        estimator = p.pop("estimator")
        options = _options(estimators=[estimator], **p)
        data = _call(_native.estimate_one, X, Y, options, progress)
        # Only a number is returned: the estimate's own warnings become Python warnings.
        warn_each(data["diagnostics"]["warnings"], EstimateWarning)
        rules = ("notes", "x_columns", "y_columns", "unit")
        self.estimate_ = Estimate({k: Record._wrap(v) for k, v in data.items() if k not in rules})
        u = data["in_unit"]
        self.value_ = _float(u["value"])
        self.interval_: Tuple[float, float] = (_float(u["low"]), _float(u["high"]))
        self.kind_ = data["kind"]
        self.notes_ = list(data.get("notes", []))
        self.n_features_in_ = data["dim_x"]
        if is_pandas(X):
            self.feature_names_in_ = list(data["x_columns"])
        if is_pandas(Y):
            self.target_names_in_ = list(data["y_columns"])
        return self

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__).parameters
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if _differs(v, sig[k].default)]
        return f"MutualInformation({', '.join(changed)})"


def _differs(v: Any, default: Any) -> bool:
    if isinstance(v, (list, tuple)) and isinstance(default, (list, tuple)):
        return list(v) != list(default)
    return not (v is default or v == default)
