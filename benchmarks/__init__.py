"""iolab's speed benchmarks: run on demand with ``python -m benchmarks``, never by pytest."""
