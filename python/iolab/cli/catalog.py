"""`iolab catalog`: List and show the bundled catalog (VMs, disks, services, protocols)."""

import typer

app = typer.Typer(help="List and show the bundled catalog (VMs, disks, services, protocols).", no_args_is_help=True)
