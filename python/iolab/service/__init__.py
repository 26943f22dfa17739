"""iolab's application layer: one function per job, behind every interface."""
