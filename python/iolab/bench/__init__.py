"""Benchmarking real storage with fio: safety rules, the fio executor, the results database,
sweeps and multi-host runs (``iolab bench`` and ``iolab results``)."""
