"""``iolab report``: one self-contained HTML file (inline CSS and SVG, no script, nothing
loaded from the network) for stored runs and sweeps, a prediction, a plan or a
characterization.

- :mod:`.build` reads what the user names and makes the page's sections;
- :mod:`.runs`, :mod:`.prediction`, :mod:`.plan`, :mod:`.characterization`: one kind each;
- :mod:`.page` the HTML, :mod:`.figures` the SVG figures, :mod:`.output` the file.
"""

from __future__ import annotations

from .build import KINDS, build
from ..outputs import check_output, write_output
from .page import Page, Section

__all__ = ["KINDS", "build", "check_output", "write_output", "Page", "Section"]
