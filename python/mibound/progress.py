"""Progress of the neural training, fed by the library's progress callback: a tqdm bar (in
Jupyter, the notebook widget of ``tqdm.auto``) over the training steps of an estimate.

``progress=True`` in :func:`mibound.estimate` and :class:`mibound.MutualInformation` draws the
bar (tqdm is an optional dependency: ``pip install tqdm``); any callable ``progress(done,
total)`` receives the counts instead, from the calling thread, about every 20 ms."""

from __future__ import annotations

from typing import Any, Callable, Optional

Callback = Callable[[int, int], None]


class TqdmProgress:
    """A ``progress(done, total)`` callable that drives one tqdm bar; :meth:`close` ends it."""

    def __init__(self, desc: str = "training") -> None:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            raise ImportError("progress=True needs tqdm: pip install tqdm (or pass a callable progress(done, total))") from None
        self._tqdm = tqdm
        self._desc = desc
        self._bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = self._tqdm(total=total, desc=self._desc, unit="step")
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def callback(progress: Any) -> Optional[Callback]:
    """The callable behind a ``progress`` argument: ``False``/``None`` none, ``True`` a tqdm
    bar, a callable itself."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return TqdmProgress()
    if callable(progress):
        return progress
    raise TypeError("progress: expected True, False or a callable progress(done, total)")


def finish(cb: Optional[Callback]) -> None:
    """Closes a bar made by :func:`callback`."""
    if isinstance(cb, TqdmProgress):
        cb.close()
