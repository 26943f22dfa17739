"""The Rust core of iolab's simulator (built from ``rust/`` by maturin).

Private: use :func:`iolab.sim.simulate`. A request is JSON text::

    {"network": Network.to_dict(),
     "options": {"seed": 1, "ios": 1000000 | "duration": 60.0, "ramp": 0.0,
                 "interval": 1.0, "replications": 1}}

and the answer is JSON text (the engine's report: ``total``, ``read``, ``write``,
``groups``, ``jobs``, ``classes``, ``series``, ``resources``, ``slot_limits``,
``credits``, ``cache``, ``replications``, ``ios``, ``duration``, ``partial``,
``stopped``; times in seconds). Bad input raises ``ValueError(field, message)``, with
``field`` a path such as ``options.ios`` or ``network.classes[0].route[1].visit.resource``.
"""

def version() -> str:
    """The crate's version."""

def simulate(request: str) -> str:
    """Run a request to the end (the GIL released) and return the report."""

class Simulation:
    """A request running in a background thread.

    ``Simulation(request)`` validates (``ValueError(field, message)``); ``start()`` begins;
    ``progress()`` and ``completed()`` may be polled while it runs; ``cancel()`` makes it
    stop soon and report what it measured (``partial: true``); ``wait(timeout)`` and
    ``result()`` release the GIL while they wait.
    """

    def __init__(self, request: str) -> None: ...
    def start(self) -> None:
        """Start the run (RuntimeError when started before)."""
    def progress(self) -> float:
        """Share of the work done, from 0 to 1 (IOs, or simulated time, over the target)."""
    def completed(self) -> int:
        """IOs measured so far, over all replications."""
    def cancel(self) -> None:
        """Ask the run to stop; it checks every few thousand events."""
    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds; True once the run has finished."""
    def result(self) -> str:
        """Wait for the end and return the report (RuntimeError when never started)."""
