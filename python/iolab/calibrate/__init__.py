"""Calibration: fit a scenario's uncertain parameters (latencies, the per-IO CPU cost, the
caps a user names) to stored bench runs, and write them as a calibration file that
``predict`` and ``simulate`` take with ``--calibration``.

- :mod:`.observations`: the stored runs, with the jobs as fio ran them;
- :mod:`.parameters`: which scenario fields can be fitted, their start values and bounds;
- :mod:`.fit`: least squares and the identifiability check;
- :mod:`.calibration`: the file, and applying it to a scenario.
"""

from __future__ import annotations

from .calibration import apply_calibration, document, render
from .fit import Fit, PointError, fit, point_errors
from .observations import Observation, observations
from .parameters import Parameter, candidates, select

__all__ = ["apply_calibration", "document", "render", "Fit", "PointError", "fit", "point_errors",
           "Observation", "observations", "Parameter", "candidates", "select"]
